/**
 * Fields an org refuses on a write, so the write can be sent again without them. Salesforce
 * answers a field the user cannot see with `INVALID_FIELD` and names it only in its message
 * ("No such column 'X' on sobject of type Lead"), and a field the user can read but not edit
 * with `INVALID_FIELD_FOR_INSERT_UPDATE` ("Unable to create/update fields: X, Y. ..."), usually
 * with `fields`. Describe's `createable`/`updateable` then says what else would be refused.
 */
import type { CrmObject, FieldValues } from '../../model/objects.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { type DescribeField, describeFields } from '../read/reads.js';
import { ADDRESS_PREFIXES, addressParts } from './address-codes.js';

export interface Refusal {
  /** `errorCode` (REST) or `statusCode` (composite result). */
  readonly code: string;
  readonly message: string;
  readonly fields: readonly string[];
}

const NO_SUCH_COLUMN = /No such column '(\w+)' on sobject of type \w+/;
const READ_ONLY = /Unable to create\/update fields: ([\w, ]+?)\. /;

/**
 * Refusals of a value rather than a record: the fields named are left out and the rest written.
 * Under State and Country/Territory Picklists, FIELD_INTEGRITY_EXCEPTION refuses a country or
 * state the org does not take (or a state not of its country): the address's country and state
 * are left out together.
 * https://help.salesforce.com/s/articleView?id=xcloud.admin_state_country_picklists_integ_values.htm&type=5
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
 */
export const VALUE_REFUSALS = new Set([
  'FIELD_INTEGRITY_EXCEPTION',
  'INVALID_EMAIL_ADDRESS',
  'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
  'STRING_TOO_LONG',
]);

/** The country and state fields of the address `field` belongs to, if it is one of them. */
function addressOf(object: CrmObject, field: string): string[] {
  for (const prefix of ADDRESS_PREFIXES[object]) {
    const parts = addressParts(prefix);
    if (parts.some((part) => part.toLowerCase() === field.toLowerCase())) return parts;
  }
  return [];
}

/**
 * The country and state fields of the addresses a FIELD_INTEGRITY_EXCEPTION names; of every
 * address when it names no field but speaks of a country or state.
 */
function addressesIn(object: CrmObject, refusal: Refusal, fields: readonly string[]): string[] {
  if (fields.length === 0 && /\b(country|state)\b/i.test(refusal.message))
    return ADDRESS_PREFIXES[object].flatMap(addressParts);
  return fields.flatMap((field) => addressOf(object, field));
}

/** The field names a refusal gives, from `fields` or as its message words them. */
export function namedFields(refusal: Refusal): string[] {
  if (refusal.code === 'INVALID_FIELD') {
    const column = NO_SUCH_COLUMN.exec(refusal.message)?.[1];
    return [...refusal.fields, ...(column ? [column] : [])];
  }
  if (refusal.code === 'INVALID_FIELD_FOR_INSERT_UPDATE') {
    const listed = READ_ONLY.exec(refusal.message)?.[1]?.split(/,\s*/) ?? [];
    return [...refusal.fields, ...listed];
  }
  return VALUE_REFUSALS.has(refusal.code) ? [...refusal.fields] : [];
}

/** Per run: which fields each object refuses, from refusals and one describe per object. */
export class RefusedFields {
  readonly #connection: SalesforceConnection;
  readonly #described = new Map<CrmObject, Promise<Map<string, DescribeField>>>();

  constructor(connection: SalesforceConnection) {
    this.#connection = connection;
  }

  /**
   * The fields of `values` to leave out after `refusal`: those it names, and those describe
   * does not show or marks not createable (create) or updateable (update). Empty when the
   * refusal is not about fields: the write then failed for another reason.
   */
  async of(
    object: CrmObject,
    mode: 'create' | 'update',
    refusal: Refusal,
    values: FieldValues,
  ): Promise<string[]> {
    const fields = namedFields(refusal);
    const address =
      refusal.code === 'FIELD_INTEGRITY_EXCEPTION' ? addressesIn(object, refusal, fields) : [];
    if (refusal.code === 'FIELD_INTEGRITY_EXCEPTION' && address.length === 0) return [];
    const named = new Set([...fields, ...address].map((f) => f.toLowerCase()));
    if (named.size === 0 && refusal.code !== 'INVALID_FIELD_FOR_INSERT_UPDATE') return [];
    const unwritable = new Set(await this.unwritable(object, mode, Object.keys(values)));
    return Object.keys(values).filter(
      (name) => named.has(name.toLowerCase()) || unwritable.has(name),
    );
  }

  /** The fields of `names` describe does not show, or marks not createable/updateable. */
  async unwritable(
    object: CrmObject,
    mode: 'create' | 'update',
    names: readonly string[],
  ): Promise<string[]> {
    const described = await this.described(object);
    const flag = mode === 'create' ? 'createable' : 'updateable';
    return names.filter((name) => {
      const field = described.get(name.toLowerCase());
      return !field || field[flag] === false;
    });
  }

  /** The object's fields as describe shows them, by lower-cased name (one describe per run). */
  described(object: CrmObject): Promise<Map<string, DescribeField>> {
    let described = this.#described.get(object);
    if (!described) {
      described = describeFields(this.#connection, object).then(
        (fields) => new Map(fields.map((f) => [f.name.toLowerCase(), f])),
      );
      this.#described.set(object, described);
    }
    return described;
  }
}
