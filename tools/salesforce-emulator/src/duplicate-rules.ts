// The standard duplicate rules every new org has active: Account, Contact and Lead. Their action
// on create is "Allow" with an alert, which the API cannot show: a create that matches is refused
// with DUPLICATES_DETECTED and the matched records unless the request carries
// `Sforce-Duplicate-Rule-Header: allowSave=true`. Edits only report, so updates are never refused.
// A Bulk API 2.0 job has no such header: its matching rows fail with the code in `sf__Error`.
// https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_failed_results.htm
// https://help.salesforce.com/s/articleView?id=sales.duplicate_rules_standard_rules.htm
// https://help.salesforce.com/s/articleView?id=sales.duplicate_rules_standard_account_rule.htm
// https://help.salesforce.com/s/articleView?id=sales.duplicate_rules_standard_contact_rule.htm
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_duplicaterules.htm
//
// The matching is the standard matching rules simplified (the README says how): names are
// normalised (case, punctuation, company suffixes), a first name matches its prefix ("Rob",
// "Robert"), and a blank field never matches.
// https://help.salesforce.com/s/articleView?id=sales.matching_rules_standard_contact_rule.htm
// https://help.salesforce.com/s/articleView?id=sales.matching_rules_standard_account_rule.htm
import type { IncomingMessage } from 'node:http';
import type { Org, SfRecord } from './org.ts';

/**
 * Whether the request lets an alerting rule's duplicates be saved: `allowSave=true` in
 * `Sforce-Duplicate-Rule-Header` (every field of the header defaults to false).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_duplicaterules.htm
 */
export function allowsSave(req: IncomingMessage): boolean {
  const header = String(req.headers['sforce-duplicate-rule-header'] ?? '');
  return header
    .split(';')
    .some((part) => part.replace(/\s/g, '').toLowerCase() === 'allowsave=true');
}

const SUFFIXES = new Set([
  'inc',
  'incorporated',
  'ltd',
  'limited',
  'llc',
  'corp',
  'corporation',
  'co',
  'company',
  'gmbh',
  'plc',
  'sa',
  'ag',
  'the',
]);

/** Names already normalised: every create compares against every record of the objects. */
const normalised = new Map<string, string>();

/** Lower case, letters and digits only, company suffixes ("Inc", "Ltd", ...) left out. */
export function normalisedName(value: unknown): string {
  if (typeof value !== 'string') return '';
  let name = normalised.get(value);
  if (name === undefined) {
    name = normalise(value);
    normalised.set(value, name);
  }
  return name;
}

function normalise(value: string): string {
  return value
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !SUFFIXES.has(word))
    .join(' ');
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : '');

/** The host of a website without `www.`: `https://www.acme.com/about` is `acme.com`. */
const site = (value: unknown) =>
  text(value)
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '');

/** Equal and not blank: a blank field never matches (the rules' "Don't match" for blanks). */
const same = (a: string, b: string) => a !== '' && a === b;

/** A nickname-ish first name: equal, or one the other's prefix ("Rob" and "Robert"). */
function firstNamesMatch(a: string, b: string): boolean {
  if (a === '' || b === '') return false;
  return a.startsWith(b) || b.startsWith(a);
}

/** A person as the Contact and Lead matching rules compare them. */
interface Person {
  first: string;
  last: string;
  email: string;
  company: string;
}

function personOf(org: Org, object: string, values: Record<string, unknown>): Person {
  // A Contact's company is its Account's name: the Lead rule maps Company to Account Name.
  const company =
    object === 'Lead'
      ? values.Company
      : org.table('Account').get(String(values.AccountId ?? ''))?.Name;
  return {
    first: normalisedName(values.FirstName),
    last: normalisedName(values.LastName),
    email: text(values.Email),
    company: normalisedName(company),
  };
}

/**
 * Same last name, and the same email (a blank first name is ignored when the email matches), or
 * a matching first name at the same company.
 */
function samePerson(a: Person, b: Person): boolean {
  if (!same(a.last, b.last)) return false;
  const first = firstNamesMatch(a.first, b.first);
  const blankFirst = a.first === '' || b.first === '';
  return (same(a.email, b.email) && (first || blankFirst)) || (first && same(a.company, b.company));
}

/** The same company name, and the same website, billing street, city or postal code. */
function sameAccount(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (!same(normalisedName(a.Name), normalisedName(b.Name))) return false;
  return (
    same(site(a.Website), site(b.Website)) ||
    ['BillingStreet', 'BillingCity', 'BillingPostalCode'].some((f) => same(text(a[f]), text(b[f])))
  );
}

/** The rule of each object and the matching rules it runs, with the object each compares to. */
const RULES: Record<string, { rule: string; matching: [entity: string, rule: string][] }> = {
  Account: {
    rule: 'Standard_Account_Duplicate_Rule',
    matching: [['Account', 'Standard_Account_Match_Rule_v1_0']],
  },
  // Since Summer '17 the Contact rule also matches Leads, and the Lead rule Contacts.
  Contact: {
    rule: 'Standard_Contact_Duplicate_Rule',
    matching: [
      ['Contact', 'Standard_Contact_Match_Rule_v1_1'],
      ['Lead', 'Standard_Lead_Match_Rule_v1_0'],
    ],
  },
  Lead: {
    rule: 'Standard_Lead_Duplicate_Rule',
    matching: [
      ['Lead', 'Standard_Lead_Match_Rule_v1_0'],
      ['Contact', 'Standard_Contact_Match_Rule_v1_1'],
    ],
  },
};

function matches(org: Org, object: string, values: Record<string, unknown>, entity: string) {
  const live = [...org.table(entity).values()].filter((r) => r.IsDeleted !== true);
  if (object === 'Account') return live.filter((r) => sameAccount(values, r));
  const person = personOf(org, object, values);
  // The last name first: most records differ there, and it is the cheapest to compare.
  return live.filter(
    (r) =>
      normalisedName(r.LastName) === person.last && samePerson(person, personOf(org, entity, r)),
  );
}

/**
 * The DUPLICATES_DETECTED error a create of `values` gets from the standard rules, or undefined
 * when nothing matches. Its `duplicateResult` is the DuplicateResult of the SOAP and REST APIs:
 * one MatchResult per matching rule that found records, each record by its Id.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_objects_duplicateresult.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_objects_matchresult.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_objects_matchrecord.htm
 */
export function duplicatesOf(org: Org, object: string, values: Record<string, unknown>) {
  const rule = RULES[object];
  if (!rule) return undefined;
  const matchResults = rule.matching.flatMap(([entity, matchRule]) => {
    const found: SfRecord[] = matches(org, object, values, entity);
    if (found.length === 0) return [];
    const matchRecords = found.map((r) => ({
      additionalInformation: [],
      fieldDiffs: [],
      matchConfidence: 100,
      record: {
        attributes: { type: entity, url: `/services/data/v59.0/sobjects/${entity}/${r.Id}` },
        Id: r.Id,
      },
    }));
    return [
      {
        entityType: entity,
        errors: [],
        matchEngine: 'FuzzyMatchEngine',
        matchRecords,
        rule: matchRule,
        size: matchRecords.length,
        success: true,
      },
    ];
  });
  if (matchResults.length === 0) return undefined;
  // "Use one of these records?" is the standard rules' alert text.
  const message = 'Use one of these records?';
  return {
    duplicateResult: {
      allowSave: true,
      duplicateRule: rule.rule,
      duplicateRuleEntityType: object,
      errorMessage: message,
      matchResults,
    },
    errorCode: 'DUPLICATES_DETECTED',
    message,
  };
}
