/**
 * Person accounts: in an org that has them, some Accounts are people (`IsPersonAccount` true),
 * not companies. The sync reads, matches and checks for duplicates among business accounts only,
 * so a person whose website has a company's domain is never updated or linked as that company.
 * The field exists only once person accounts are enabled: describe says whether it does.
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_account.htm
 */
import type { SoqlCondition } from '../../rest/soql.js';
import type { SalesforceConnection } from '../connection/connection.js';

/** The condition that leaves person accounts out of an Account query. */
export const BUSINESS_ACCOUNTS: SoqlCondition = { field: 'IsPersonAccount', value: false };

/** Whether describe `names` of Account show person accounts. */
export function showsPersonAccounts(names: Iterable<string>): boolean {
  for (const name of names) if (name === 'IsPersonAccount') return true;
  return false;
}

/** One describe of Account per connection (a run), for the duplicate checks. */
const known = new WeakMap<SalesforceConnection, Promise<boolean>>();

/** ` AND IsPersonAccount = false` when the org has person accounts, otherwise nothing. */
export async function businessOnly(connection: SalesforceConnection): Promise<string> {
  let has = known.get(connection);
  if (has === undefined) {
    // Asked here rather than through reads.ts, which imports this module.
    has = connection
      .rest<{ fields: { name: string }[] }>('GET', '/sobjects/Account/describe', {
        operation: 'describe',
      })
      .then(({ body }) => showsPersonAccounts(body.fields.map((f) => f.name)));
    known.set(connection, has);
  }
  return (await has) ? ' AND IsPersonAccount = false' : '';
}
