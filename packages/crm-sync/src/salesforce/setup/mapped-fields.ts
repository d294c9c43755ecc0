/**
 * Checks the property-sync mappings against the org before a sync: each mapped field is looked up
 * in its object's describe, and one that cannot take what the sync writes is refused.
 */

import type { CrmObject } from '../../model/objects.js';
import type { FieldMapping } from '../../plan/field-mappings.js';
import { type RefusedMapping, refusedMappings } from '../../plan/mapped-field-types.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { describeFields } from '../read/reads.js';

/** The mappings the org's fields refuse (one describe per object the mappings name). */
export async function checkMappedFields(
  connection: SalesforceConnection,
  mappings: readonly FieldMapping[],
): Promise<RefusedMapping[]> {
  const fields = new Map<CrmObject, Awaited<ReturnType<typeof describeFields>>>();
  for (const object of new Set(mappings.map((m) => m.object)))
    fields.set(object, await describeFields(connection, object));
  return refusedMappings(mappings, fields);
}
