// A customer's org and the events a sync brings to it (issue 37's "Done when" run): Accounts,
// Contacts and Leads already there, some owned by another user, some that the events' people and
// companies duplicate by name rather than by email or website; and events whose data is as real
// events are: countries as `GB` and as `United Kingdom`, US and Canadian states, names over 40
// characters, emojis, a few malformed emails and a few records a customer's trigger refuses.
// Deterministic: company i is always the same, so a failure reproduces.
import type { Org } from './org.ts';

/**
 * What the org should do with a subject (a company's Account, a person's Contact or Lead):
 * `accepted`, it holds the Service values after the sync; `duplicate`, a record there already
 * matches it by name and company, so the duplicate rules refuse its create; `trigger`, the customer's trigger refuses it;
 * `invalid-email`, its email is malformed (Salesforce may refuse it); `follows-company`, its
 * Contact hangs on an Account the org refuses; `none`, nothing is written for it (no setting or
 * motion creates it).
 */
export type CustomerFate =
  | 'accepted'
  | 'duplicate'
  | 'trigger'
  | 'invalid-email'
  | 'follows-company'
  | 'none';

/** A subject of the events: `key` is the company's domain or the person's email (lower case). */
export interface CustomerSubject {
  readonly object: 'Account' | 'Contact' | 'Lead';
  readonly key: string;
  readonly fate: CustomerFate;
}

/** A customer-like org's scenario: the events to sync and what the org should do with each subject. */
export interface CustomerOrg {
  /** Session events (packages/lookup-core/EVENTS.md), one or two people per company. */
  readonly events: object[];
  /** Every company and person of the events, with what the org should do with it. */
  readonly subjects: CustomerSubject[];
  /** The ids of the records the org held before the sync. */
  readonly seeded: ReadonlySet<string>;
  /** The user who owns some of the records (not the sync's user). */
  readonly otherOwner: string;
}

/**
 * The sync's settings file for the run: Leads for unknown people, and an Account with a Contact
 * for people of high intent, as integrators commonly set it up.
 */
export const CUSTOMER_SYNC_CONFIG = {
  settings: { createLeads: true },
  motions: [
    {
      name: 'Engaged visitors',
      conditions: { purchaseIntent: ['high', 'very_high'] },
      actions: ['createAccountAndContact'],
    },
  ],
  // The preset's validation rule asks a new Lead for an Industry: the org's admin tells the
  // integrator, who gives it as a constant of every create.
  createDefaults: { Lead: { fields: { Industry: 'Other' } } },
} as const;

/** The text a customer's trigger refuses in an Account Name or a Contact LastName. */
const TRIGGER_REFUSES = '[trigger-refuses]';

const FIRST_NAMES = ['Ann', 'Bruno', 'Chloé', 'Dev', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines'];
const SUFFIXES = ['Ltd', 'Inc.', 'GmbH', 'SAS', 'LLC'];
const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';
/** 14 * 5 syllables, 3 per word. */
const WORDS = 70 ** 3;

/** A word of three syllables for `n`: 7919 is prime to 70^3, so distinct `n` give distinct words. */
function word(n: number): string {
  let k = (n * 7919 + 12345) % WORDS;
  let text = '';
  for (let s = 0; s < 3; s++) {
    const syllable = k % 70;
    text += `${CONSONANTS[syllable % 14]}${VOWELS[Math.floor(syllable / 14)]}`;
    k = Math.floor(k / 70);
  }
  return text;
}

const capital = (text: string) => `${text[0]?.toUpperCase()}${text.slice(1)}`;

/** Where a person says they are: countries as codes and as names, states as codes and names. */
const PLACES: readonly (readonly [string, string | null, string])[] = [
  ['London', null, 'GB'],
  ['Manchester', null, 'United Kingdom'],
  ['Austin', 'TX', 'US'],
  ['San Francisco', 'California', 'United States'],
  ['Toronto', 'ON', 'CA'],
  ['Montréal', 'Quebec', 'Canada'],
  ['Lyon', null, 'France'],
  // A state that is not its country's, and a country name that is no integration value.
  ['Leeds', 'Texas', 'GB'],
  ['Berlin', null, 'Deutschland'],
  // A city longer than the 40 characters of MailingCity.
  ['Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch', null, 'United Kingdom'],
];

/** How company i is set up (i % 20 picks the case, rarer variants by larger moduli). */
function caseOf(i: number) {
  const r = i % 20;
  const known = [0, 2, 4, 6, 7, 9].includes(r) || (r > 10 && r % 2 === 0);
  const high = [1, 2, 5, 7, 8, 9].includes(r) || (r > 10 && r % 3 !== 0);
  return {
    known,
    high,
    ownedByOther: i % 10 === 0 || i % 10 === 4,
    contactByEmail: r === 0,
    leadByEmail: r === 4,
    contactDuplicate: i % 60 === 2,
    leadDuplicate: i % 60 === 3,
    accountLookAlike: i % 60 === 5,
    leadMatchesContact: i % 60 === 6,
    // Records the sync creates (7, 8) and records it updates (20, 12): a trigger refuses both.
    triggerOnContact: i % 100 === 7 || i % 100 === 20,
    triggerOnAccount: i % 100 === 8 || i % 100 === 12,
    invalidEmail: i % 100 === 9 || i % 100 === 10,
    secondPerson: i % 3 === 0,
  };
}

interface Person {
  first: string;
  last: string;
  email: string;
  title: string;
}

/** Person p of company i; the odd ones have long, emoji or malformed parts. */
function personOf(i: number, p: number, domain: string): Person {
  const c = caseOf(i);
  let first = FIRST_NAMES[(i + p) % FIRST_NAMES.length] ?? 'Ann';
  const last = capital(word(2 * i + p + 1_000_000));
  if (i % 25 === 13) first = 'Maximiliana-Josephina-Alexandrina-Theodora'; // 42 characters
  // 31 characters, 41 UTF-16 units: over FirstName's 40 only when counted as Salesforce does.
  if (i % 25 === 14) first = 'Anne-Sophie-Marguerite 🚀🚀🚀🚀🚀🚀🚀🚀🚀';
  // Addresses are ASCII, as an org without Email Address Internationalization takes them: Chloé
  // writes as chloe. https://help.salesforce.com/s/articleView?id=sales.emailadmin_eai_considerations.htm
  const given = (first.split(/[- ]/)[0] ?? first).normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  const local = `${given.toLowerCase()}.${last.toLowerCase()}`;
  const malformed = p === 0 && c.invalidEmail;
  const email = malformed
    ? `${i % 2 === 0 ? `${local}..x` : `.${local}`}@${domain}`
    : `${local}@${domain}`;
  const title = i % 25 === 17 ? `Senior ${'Principal '.repeat(14)}Engineer` : 'Engineer';
  const lastName = p === 0 && c.triggerOnContact ? `${last} ${TRIGGER_REFUSES}` : last;
  return { first, last: lastName, email, title };
}

/** Company i as the events name it. */
function companyOf(i: number) {
  const stem = word(i);
  const domain = `${stem}.com`;
  let name = `${capital(stem)} ${SUFFIXES[i % SUFFIXES.length]}`;
  if (i % 25 === 15) name = `${name} 🚀`;
  if (caseOf(i).triggerOnAccount) name = `${name} ${TRIGGER_REFUSES}`;
  return { stem, domain, name };
}

const HOUR = 3_600_000;

function sessionOf(i: number, p: number, person: Person, company: ReturnType<typeof companyOf>) {
  const [city, state, country] = PLACES[(i + p) % PLACES.length] ?? PLACES[0] ?? [];
  const start = Date.parse('2026-03-02T09:00:00.000Z') + (i % 500) * HOUR;
  const high = p === 0 ? caseOf(i).high : false;
  return {
    type: 'session',
    id: `s-${i}-${p}`,
    company: { domain: `https://www.${company.domain}/`, name: company.name },
    contact: {
      email: person.email,
      name: `${person.first} ${person.last}`,
      title: person.title,
    },
    visitor_id: `v-${i}-${p}`,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + 600_000).toISOString(),
    active_time: 300 + i,
    pages_visited: ['/', '/pricing'],
    signals: ['Pricing page'],
    referrer: 'https://www.google.com/',
    utm: { source: 'google', medium: 'cpc' },
    intent: high ? 'high' : 'medium',
    city,
    state,
    country,
  };
}

/**
 * The records a customer's org holds for company i: its Account (when known), Contacts and Leads
 * found by email, and the look-alikes the standard duplicate rules match by name.
 */
function seedCompany(org: Org, i: number, otherOwner: string, seeded: Set<string>) {
  const c = caseOf(i);
  const company = companyOf(i);
  const person = personOf(i, 0, company.domain);
  const owner = c.ownedByOther ? { OwnerId: otherOwner } : {};
  const add = (object: string, values: Record<string, unknown>) => {
    const id = org.insert(object, values);
    org.derive(object, org.table(object).get(id) ?? { Id: id });
    seeded.add(id);
    return id;
  };
  const mailing = { MailingCity: 'Bristol', MailingCountry: 'United Kingdom' };
  let accountId: string | undefined;
  if (c.known)
    accountId = add('Account', {
      Name: company.name,
      Website: `https://www.${company.domain}`,
      ...owner,
    });
  // The same name on another website: no duplicate for the standard account rule (a name and a
  // website or billing address), so the sync's create of the company's Account stands.
  if (c.accountLookAlike)
    add('Account', {
      Name: company.name.toUpperCase(),
      Website: `https://${company.stem}-group.com`,
    });
  const contact = { FirstName: person.first, LastName: person.last, Title: person.title };
  if (accountId && c.contactByEmail)
    add('Contact', { ...contact, AccountId: accountId, Email: person.email, ...mailing, ...owner });
  if (accountId && (c.contactDuplicate || c.leadMatchesContact))
    add('Contact', {
      ...contact,
      AccountId: accountId,
      Email: `${person.last.toLowerCase()}@old-mail.net`,
      ...mailing,
    });
  const lead = {
    FirstName: person.first,
    LastName: person.last,
    Company: company.name,
    Status: 'Open - Not Contacted',
    IsConverted: false,
  };
  if (c.leadByEmail)
    add('Lead', {
      ...lead,
      Email: person.email,
      City: 'Leeds',
      Country: 'United Kingdom',
      ...owner,
    });
  if (c.leadDuplicate) add('Lead', { ...lead, Email: `${person.last.toLowerCase()}@old-mail.net` });
}

/** The fate of company i's Account and of its people's records. */
function subjectsOf(i: number): CustomerSubject[] {
  const c = caseOf(i);
  const company = companyOf(i);
  const created = !c.known && c.high;
  const companyFate: CustomerFate = c.triggerOnAccount
    ? 'trigger'
    : c.known
      ? 'accepted'
      : created
        ? 'accepted'
        : 'none';
  const subjects: CustomerSubject[] = [
    { object: 'Account', key: company.domain, fate: companyFate },
  ];
  const people = c.secondPerson ? 2 : 1;
  for (let p = 0; p < people; p++) {
    const person = personOf(i, p, company.domain);
    const first = p === 0;
    const contact = first && (c.contactByEmail || c.high);
    let fate: CustomerFate = 'accepted';
    if (first && c.invalidEmail) fate = 'invalid-email';
    else if (first && (c.contactDuplicate || c.leadDuplicate || c.leadMatchesContact))
      fate = 'duplicate';
    else if (first && c.triggerOnContact) fate = 'trigger';
    else if (contact && !c.known && companyFate !== 'accepted') fate = 'follows-company';
    subjects.push({ object: contact ? 'Contact' : 'Lead', key: person.email.toLowerCase(), fate });
  }
  return subjects;
}

/**
 * Seeds `org` as a customer's org for `companies` companies and returns the events about them,
 * with what the org should do with each company and person.
 */
export function customerOrg(org: Org, { companies }: { companies: number }): CustomerOrg {
  const otherOwner = org.insert('User', {
    Name: 'Olive Other',
    Email: 'olive@example.com',
    Username: 'olive@example.com.org',
  });
  const seeded = new Set<string>();
  const events: object[] = [];
  const subjects: CustomerSubject[] = [];
  for (let i = 0; i < companies; i++) {
    seedCompany(org, i, otherOwner, seeded);
    const company = companyOf(i);
    for (let p = 0; p < (caseOf(i).secondPerson ? 2 : 1); p++)
      events.push(sessionOf(i, p, personOf(i, p, company.domain), company));
    subjects.push(...subjectsOf(i));
  }
  return { events, subjects, seeded, otherOwner };
}
