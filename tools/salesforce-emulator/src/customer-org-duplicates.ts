// Which records of the org the standard duplicate rules would call the same, found by the rules'
// match keys rather than by the emulator's own matching: an Account by its name without legal
// suffixes or punctuation together with its website or a billing address field, a Contact or Lead
// by its email, or by first initial, last name and company ("First_Name (1,1) Last_Name
// Company", the standard contact and lead match keys).
// https://help.salesforce.com/apex/HTViewHelpDoc?id=sales.matching_rules_standard_rules.htm
// https://help.salesforce.com/htviewhelpdoc?id=matching_rules_standard_contact_rule.htm
import type { Org, SfRecord } from './org.ts';

/** A website's host as a domain: no scheme, no `www.`, no path. */
export const websiteHost = (url: unknown) =>
  String(url ?? '')
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '');

const LEGAL_SUFFIXES = new Set(['ltd', 'inc', 'gmbh', 'sas', 'llc', 'corp', 'co', 'limited']);

/** A company name as the fuzzy match compares it: letters and digits, no legal suffix. */
function companyKey(name: unknown): string {
  return String(name ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w !== '' && !LEGAL_SUFFIXES.has(w))
    .join(' ');
}

function personKey(record: SfRecord, company: unknown): string {
  const initial = String(record.FirstName ?? '')
    .trim()
    .slice(0, 1)
    .toLowerCase();
  return `person:${initial}|${String(record.LastName ?? '')
    .trim()
    .toLowerCase()}|${companyKey(company)}`;
}

/** The match keys of every Account, Contact and Lead, with the records holding each. */
function matchKeys(org: Org): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  const add = (key: string, id: string) => keys.set(key, [...(keys.get(key) ?? []), id]);
  const live = (object: string) => [...org.table(object).values()].filter((r) => !r.IsDeleted);
  for (const account of live('Account')) {
    const name = companyKey(account.Name);
    const { BillingStreet: street, BillingCity: city, BillingPostalCode: zip } = account;
    const website = websiteHost(account.Website);
    for (const [field, value] of Object.entries({ website, street, city, zip }))
      if (name !== '' && value)
        add(`account:${name}|${field}:${String(value).toLowerCase()}`, account.Id);
  }
  for (const object of ['Contact', 'Lead'] as const) {
    for (const record of live(object)) {
      if (record.Email) add(`email:${String(record.Email).toLowerCase()}`, record.Id);
      const company =
        object === 'Lead'
          ? record.Company
          : org.table('Account').get(String(record.AccountId ?? ''))?.Name;
      if (company) add(personKey(record, company), record.Id);
    }
  }
  return keys;
}

/**
 * The groups of records the standard rules match that hold a record created after `seeded` (the
 * ids the org held before): each `key: id, id` once. Empty when no duplicate was created.
 */
export function createdDuplicates(org: Org, seeded: ReadonlySet<string>): string[] {
  return [...matchKeys(org)]
    .filter(([, ids]) => ids.length > 1 && ids.some((id) => !seeded.has(id)))
    .map(([key, ids]) => `${key}: ${ids.join(', ')}`);
}
