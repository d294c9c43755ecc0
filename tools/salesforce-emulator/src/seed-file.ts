// An org's starting records from JSON: generated companies, leads and opportunities (`seedOrg`),
// and records written out by hand, where `"$ref": "acme"` names a record and `"@acme"` in a
// later record's field stands for its Id.
import type { Org } from './org.ts';
import { type SeedOptions, seedOrg } from './seed.ts';

/** The JSON a seed file holds (`salesforce-emulator --seed file.json`). */
export interface SeedFile extends Partial<SeedOptions> {
  /** Records per object, inserted in the order given. */
  records?: Record<string, Record<string, unknown>[]>;
}

/** A seed file that does not describe records the org can hold. */
export class SeedFileError extends Error {
  override name = 'SeedFileError';
}

const COUNTS = ['companies', 'leads', 'opportunities'] as const;

function checkShape(seed: unknown): SeedFile {
  if (typeof seed !== 'object' || seed === null || Array.isArray(seed))
    throw new SeedFileError('a seed file holds one JSON object');
  const file = seed as Record<string, unknown>;
  for (const key of Object.keys(file)) {
    if (key !== 'records' && !COUNTS.includes(key as (typeof COUNTS)[number]))
      throw new SeedFileError(`unknown key "${key}" (expected records, ${COUNTS.join(', ')})`);
  }
  for (const count of COUNTS) {
    const value = file[count];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0))
      throw new SeedFileError(`"${count}" must be a whole number of at least 0`);
  }
  const records = file.records;
  if (records === undefined) return file as SeedFile;
  if (typeof records !== 'object' || records === null || Array.isArray(records))
    throw new SeedFileError('"records" maps object names to lists of records');
  for (const [object, list] of Object.entries(records)) {
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'object' || r === null))
      throw new SeedFileError(`"records.${object}" must be a list of objects`);
  }
  return file as SeedFile;
}

/** Puts the records `seed` (parsed JSON) describes into `org`; throws SeedFileError on bad input. */
export function seedFromFile(org: Org, seed: unknown): void {
  const file = checkShape(seed);
  seedOrg(org, {
    companies: file.companies ?? 0,
    leads: file.leads ?? 0,
    opportunities: file.opportunities ?? 0,
  });
  const ids = new Map<string, string>();
  for (const [object, list] of Object.entries(file.records ?? {})) {
    if (!org.fields.has(object)) throw new SeedFileError(`the org has no object "${object}"`);
    for (const [index, { $ref, ...values }] of list.entries()) {
      for (const [name, value] of Object.entries(values)) {
        if (!org.fields.get(object)?.has(name))
          throw new SeedFileError(`records.${object}[${index}]: ${object} has no field "${name}"`);
        if (typeof value !== 'string' || !value.startsWith('@')) continue;
        const id = ids.get(value.slice(1));
        if (!id)
          throw new SeedFileError(
            `records.${object}[${index}].${name}: no record "${value}" before it`,
          );
        values[name] = id;
      }
      const id = org.insert(object, values);
      org.derive(object, org.table(object).get(id) ?? { Id: id });
      if (typeof $ref === 'string') ids.set($ref, id);
    }
  }
}
