/**
 * Countries and states as an org takes them. With State and Country/Territory Picklists on,
 * each address has restricted picklists of ISO codes (`*CountryCode`, and `*StateCode`
 * dependent on it) and its text fields take only the org's integration values; a state must
 * belong to its country. So a country given as a code (`GB`), a name (`United Kingdom`) or a
 * common alias (`UK`) is written as its code, found in describe's picklist, and a state only when
 * describe lists it for that country. With the picklists off, the country's English name is
 * written in the text field.
 * https://help.salesforce.com/s/articleView?id=xcloud.admin_state_country_picklists_integ_values.htm&type=5
 */
import type { CrmObject } from '../../model/objects.js';
import type { DescribeField, DescribePicklistEntry } from '../read/reads.js';

/** The compound addresses of each object, by the prefix of their fields. */
export const ADDRESS_PREFIXES: Readonly<Record<CrmObject, readonly string[]>> = {
  Account: ['Billing', 'Shipping'],
  Contact: ['Mailing', 'Other'],
  Lead: [''],
};

/** The fields of an address the picklists govern: country and state, text and code. */
export const addressParts = (prefix: string) =>
  ['Country', 'CountryCode', 'State', 'StateCode'].map((part) => `${prefix}${part}`);

/** Names people write for a country that are neither its ISO code nor its ISO name. */
const ALIASES: Readonly<Record<string, string>> = {
  uk: 'GB',
  'great britain': 'GB',
  britain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  usa: 'US',
  'u.s.': 'US',
  'u.s.a.': 'US',
  'united states of america': 'US',
  uae: 'AE',
};

const englishNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

const same = (a: string | null | undefined, b: string) =>
  typeof a === 'string' && a.localeCompare(b, 'en', { sensitivity: 'accent' }) === 0;

/** The active entry whose value or label is `input` (any case), or whose value is `alias`. */
function entryOf(
  entries: readonly DescribePicklistEntry[],
  input: string,
  alias?: string,
): DescribePicklistEntry | undefined {
  return entries.find(
    (e) =>
      e.active &&
      (same(e.value, input) || same(e.label, input) || (alias !== undefined && e.value === alias)),
  );
}

/** The ISO code of `input` in the org's country picklist, if it lists it. */
export function countryCode(codeField: DescribeField, input: string): string | undefined {
  const trimmed = input.trim();
  return entryOf(codeField.picklistValues ?? [], trimmed, ALIASES[trimmed.toLowerCase()])?.value;
}

/** The English name of a country given by code or alias, for a plain text field. */
export function countryName(input: string): string {
  const trimmed = input.trim();
  const code = ALIASES[trimmed.toLowerCase()] ?? trimmed.toUpperCase();
  const name = /^[A-Z]{2}$/.test(code) ? englishNames.of(code) : undefined;
  return name ?? input;
}

/** Whether `entry` is allowed for the controlling value at `index` (describe's `validFor`). */
function validFor(entry: DescribePicklistEntry, index: number): boolean {
  const bits = Buffer.from(entry.validFor ?? '', 'base64');
  return ((bits[index >> 3] ?? 0) & (0x80 >> (index & 7))) !== 0;
}

/** The state code of `input` among the states the org lists for `country`, if any. */
export function stateCode(
  stateField: DescribeField,
  countryField: DescribeField,
  country: string,
  input: string,
): string | undefined {
  const index = (countryField.picklistValues ?? []).findIndex((e) => e.value === country);
  const states = (stateField.picklistValues ?? []).filter((e) => validFor(e, index));
  return index < 0 ? undefined : entryOf(states, input.trim())?.value;
}
