// Person accounts: once enabled, Account has the read-only IsPersonAccount field and some
// Accounts are people (a business account has it false: a boolean is never null).
// https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_account.htm
import { customFieldDescribe, type Org } from './org.ts';

/** Adds IsPersonAccount to Account, false on the Accounts there are. */
export function installPersonAccounts(org: Org): void {
  org.fields.get('Account')?.set('IsPersonAccount', {
    ...customFieldDescribe('IsPersonAccount', 'Is Person Account', 'boolean'),
    custom: false,
    nillable: false,
    createable: false,
    updateable: false,
  });
  for (const account of org.table('Account').values()) account.IsPersonAccount ??= false;
}

/** A person account: a person's name and (often) a website of an employer's domain. */
export function addPersonAccount(org: Org, values: Record<string, unknown>): string {
  return org.insert('Account', { ...values, IsPersonAccount: true });
}
