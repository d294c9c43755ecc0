// State and Country/Territory Picklists, on in many customers' orgs. Each address gets a
// restricted picklist of ISO codes beside its text fields: `*CountryCode` (ISO 3166-1 alpha-2)
// and `*StateCode` (the ISO 3166-2 sub-code, dependent on the country code). The text fields
// (`*Country`, `*State`) take only a country's or state's integration value (by default its
// full name), and a state must belong to its country; anything else is refused with
// FIELD_INTEGRITY_EXCEPTION and nothing is saved. A valid code fills in its integration value,
// and a valid integration value its code.
// https://help.salesforce.com/s/articleView?id=xcloud.admin_state_country_picklists_integ_values.htm&type=5
// https://help.salesforce.com/apex/HTViewHelpDoc?id=xcloud.admin_state_country_picklists_field_syncing.htm
// https://help.salesforce.com/apex/HTViewHelpDoc?id=admin_state_country_picklists_overview.htm
import { COUNTRIES, STATES } from './countries.ts';
import type { FieldDescribe, Org, PicklistEntry } from './org.ts';

/** The compound addresses of each object, by the prefix of their fields. */
const ADDRESSES: Readonly<Record<string, readonly string[]>> = {
  Account: ['Billing', 'Shipping'],
  Contact: ['Mailing', 'Other'],
  Lead: [''],
};

const COUNTRY_NAMES = new Map(COUNTRIES);
const COUNTRY_INDEX = new Map(COUNTRIES.map(([code], i) => [code, i]));

/** `validFor` of a state: the bit of its country's place in the country codes' values. */
function validFor(country: string): string {
  const bits = new Uint8Array(Math.ceil(COUNTRIES.length / 8));
  const index = COUNTRY_INDEX.get(country) ?? 0;
  bits[index >> 3] = 0x80 >> (index & 7);
  return Buffer.from(bits).toString('base64');
}

const entry = (value: string, label: string, valid?: string): PicklistEntry => ({
  value,
  label,
  active: true,
  defaultValue: false,
  ...(valid ? { validFor: valid } : {}),
});

function codeField(name: string, label: string, values: PicklistEntry[]): FieldDescribe {
  return {
    name,
    label,
    type: 'picklist',
    length: 10,
    precision: 0,
    scale: 0,
    custom: false,
    nillable: true,
    createable: true,
    updateable: true,
    extraTypeInfo: null,
    picklistValues: values,
    restrictedPicklist: true,
  };
}

/** Turns the picklists on: the code fields appear in describe and are checked on writes. */
export function enableStateCountryPicklists(org: Org): void {
  const countries = COUNTRIES.map(([code, name]) => entry(code, name));
  const states = Object.entries(STATES).flatMap(([country, list]) =>
    list.map(([code, name]) => entry(code, name, validFor(country))),
  );
  for (const [object, prefixes] of Object.entries(ADDRESSES)) {
    for (const prefix of prefixes) {
      const label = prefix ? `${prefix} ` : '';
      org.addCustomField(
        object,
        codeField(`${prefix}CountryCode`, `${label}Country Code`, countries),
      );
      org.addCustomField(object, {
        ...codeField(`${prefix}StateCode`, `${label}State/Province Code`, states),
        controllerName: `${prefix}CountryCode`,
        dependentPicklist: true,
      });
    }
  }
}

interface Refusal {
  statusCode: string;
  message: string;
  fields: string[];
}

const integrity = (message: string, field: string): Refusal => ({
  statusCode: 'FIELD_INTEGRITY_EXCEPTION',
  message,
  fields: [field],
});

// The messages Salesforce gives, as integrators quote them.
// https://salesforce.stackexchange.com/q/122863
// https://support.storeconnect.com/article/resolve-state-country-picklist-sync-errors
const BAD_COUNTRY =
  "There's a problem with this country, even though it may appear correct. Please select a country/territory from the list of valid countries.";
const BAD_STATE =
  "There's a problem with this state, even though it may appear correct. Please select a state from the list of valid states.";
const unavailableState = (field: string, code: string) =>
  `The ${field} field contains ${code}, which isn't an available state. Your administrator can add it for you.`;

const given = (value: unknown) => value !== undefined;
const blank = (value: unknown) => value === null || value === '';

/**
 * Checks one address of a write and completes it as the org stores it (code and integration
 * value in step); `current` is the record an update changes.
 */
function checkAddress(
  prefix: string,
  values: Record<string, unknown>,
  current: Record<string, unknown> | undefined,
): Refusal | undefined {
  const [country, countryCode, state, stateCode] = [
    'Country',
    'CountryCode',
    'State',
    'StateCode',
  ].map((part) => `${prefix}${part}`) as [string, string, string, string];
  if (![country, countryCode, state, stateCode].some((f) => given(values[f]))) return undefined;
  let code = given(values[countryCode]) ? values[countryCode] : undefined;
  if (code === undefined && given(values[country])) {
    if (blank(values[country])) code = null;
    else {
      code = COUNTRIES.find(([, name]) => name === values[country])?.[0];
      if (code === undefined) return integrity(BAD_COUNTRY, country);
    }
  }
  // A country removed takes its state with it.
  if (blank(code)) {
    Object.assign(values, {
      [country]: null,
      [countryCode]: null,
      [state]: null,
      [stateCode]: null,
    });
    return undefined;
  }
  code ??= current?.[countryCode] ?? null;
  if (typeof code === 'string') {
    const name = COUNTRY_NAMES.get(code);
    if (name === undefined) return integrity(BAD_COUNTRY, countryCode);
    Object.assign(values, { [countryCode]: code, [country]: name });
  }
  const states = typeof code === 'string' ? (STATES[code] ?? []) : [];
  if (given(values[stateCode]) && !blank(values[stateCode])) {
    const found = states.find(([c]) => c === values[stateCode]);
    if (!found) return integrity(unavailableState(stateCode, String(values[stateCode])), stateCode);
    values[state] = found[1];
  } else if (given(values[state]) && !blank(values[state])) {
    const found = states.find(([, name]) => name === values[state]);
    if (!found) return integrity(BAD_STATE, state);
    values[stateCode] = found[0];
  }
  return undefined;
}

/**
 * The refusal of a write's address values, if any; otherwise `values` gets the codes and
 * integration values the org fills in.
 */
export function addressRefusal(
  object: string,
  values: Record<string, unknown>,
  current?: Record<string, unknown>,
): Refusal | undefined {
  for (const prefix of ADDRESSES[object] ?? []) {
    const refusal = checkAddress(prefix, values, current);
    if (refusal) return refusal;
  }
  return undefined;
}
