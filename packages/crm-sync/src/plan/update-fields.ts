/**
 * The fields an update may set on each object: the catalogue's custom fields and the mappings
 * written on update. A read selects them so the planner can leave out what the org already holds.
 */
import { customFieldsOf } from '../model/catalogue.js';
import { type CrmObject, crmObjects } from '../model/objects.js';
import type { FieldMapping } from './field-mappings.js';

/**
 * The fields, per object, a sync may write on update: the catalogue's and the given mappings'. Read
 * them too, so the plan can leave out values a record already holds.
 */
export function updateFields(
  mappings: readonly FieldMapping[] = [],
): Readonly<Record<CrmObject, readonly string[]>> {
  const onUpdate = (f: { readonly trigger: string }) => f.trigger !== 'CREATE';
  const entries = crmObjects.map((object) => {
    const names = [
      ...customFieldsOf(object).filter(onUpdate),
      ...mappings.filter((m) => m.object === object && onUpdate(m)),
    ].map((f) => f.apiName);
    return [object, [...new Set(names)]] as const;
  });
  return Object.fromEntries(entries) as Record<CrmObject, readonly string[]>;
}
