// Deterministic org contents for tests and the benchmark: companies with a website, a contact
// each, and leads and opportunities as asked.
import type { Org } from './org.ts';

/** How many generated records `seedOrg` inserts. */
export interface SeedOptions {
  /** Accounts `Company N` with website `https://www.companyN.com` and one Contact each. */
  companies: number;
  /** Leads `lead N` at `leadN@prospectN.io`. */
  leads?: number;
  /** Opportunities on the first accounts: alternately open and closed-won. */
  opportunities?: number;
}

/** The Ids of the records `seedOrg` inserted. */
export interface Seeded {
  accounts: string[];
  contacts: string[];
  leads: string[];
}

/** Inserts generated Accounts with a Contact each, Leads and Opportunities into `org`. */
export function seedOrg(org: Org, options: SeedOptions): Seeded {
  const seeded: Seeded = { accounts: [], contacts: [], leads: [] };
  for (let i = 0; i < options.companies; i++) {
    const accountId = org.insert('Account', {
      Name: `Company ${i}`,
      Website: `https://www.company${i}.com`,
    });
    seeded.accounts.push(accountId);
    const contactId = org.insert('Contact', {
      AccountId: accountId,
      FirstName: 'Person',
      LastName: `${i}`,
      Email: `person${i}@company${i}.com`,
      Title: 'Engineer',
    });
    org.derive('Contact', org.table('Contact').get(contactId) ?? { Id: contactId });
    seeded.contacts.push(contactId);
  }
  for (let i = 0; i < (options.leads ?? 0); i++) {
    const id = org.insert('Lead', {
      FirstName: 'Lead',
      LastName: `${i}`,
      Company: `Prospect ${i}`,
      Email: `lead${i}@prospect${i}.io`,
      Status: 'Open - Not Contacted',
      IsConverted: false,
    });
    org.derive('Lead', org.table('Lead').get(id) ?? { Id: id });
    seeded.leads.push(id);
  }
  for (let i = 0; i < (options.opportunities ?? 0); i++) {
    const id = org.insert('Opportunity', {
      Name: `Deal ${i}`,
      AccountId: seeded.accounts[i % Math.max(1, seeded.accounts.length)],
      CloseDate: '2026-06-30',
      StageName: i % 2 === 0 ? 'Prospecting' : 'Closed Won',
    });
    org.derive('Opportunity', org.table('Opportunity').get(id) ?? { Id: id });
  }
  return seeded;
}
