/**
 * The plan settings file (`--config`): export settings, motions, property-sync mappings and
 * read options, validated with zod. Every problem is reported with its path in the file.
 */
import { readFile } from 'node:fs/promises';
import { PURCHASE_INTENTS } from '@service/lookup-contract';
import { z } from 'zod';
import { CrmSyncError } from '../model/errors.js';
import { crmObjects } from '../model/objects.js';
import { defineFieldMappings, type FieldMapping } from '../plan/field-mappings.js';
import { type ExportSettings, type Motion, motionActions, type SyncFacts } from '../plan/types.js';
import type { BulkOptions } from '../salesforce/bulk/options.js';
import type { CreateDefaultsByObject } from '../salesforce/write/create-defaults.js';
import { CliError, EXIT } from './output.js';

const intent = z.enum(PURCHASE_INTENTS);
const stage = z.enum(['Customer', 'Opportunity', 'Lost Opportunity', 'Prospect']);

const Config = z.strictObject({
  /** Export settings (docs/crm-sync/planning.md, "Inputs"); missing ones take their defaults. */
  settings: z
    .strictObject({
      updateExisting: z.boolean().optional(),
      createLeads: z.boolean().optional(),
      createAccounts: z.boolean().optional(),
      createContacts: z.boolean().optional(),
      mappings: z.array(z.unknown()).optional(),
    })
    .optional(),
  motions: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        conditions: z
          .strictObject({
            pipelineStages: z.array(stage).optional(),
            purchaseIntent: z.array(intent).optional(),
            personas: z.array(z.string()).optional(),
            icps: z.array(z.string()).optional(),
            signals: z.array(z.string()).optional(),
            minSessions: z.number().int().nonnegative().optional(),
          })
          .default({}),
        actions: z.array(z.enum(motionActions)).min(1),
      }),
    )
    .optional(),
  /** CRM-side facts by domain and by email (matched personas/ICPs, identification). */
  facts: z
    .strictObject({
      companies: z
        .record(
          z.string(),
          z.strictObject({
            icps: z.array(z.string()).optional(),
            personas: z.array(z.string()).optional(),
          }),
        )
        .optional(),
      contacts: z
        .record(
          z.string(),
          z.strictObject({
            personas: z.array(z.string()).optional(),
            creationSource: z.string().optional(),
            idConfidence: intent.optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  /** Read Account owners. */
  ownerSync: z.boolean().optional(),
  /** Fields the integration user cannot read (`Lead.Title`, or `Title` for every object). */
  unreadable: z.array(z.string()).optional(),
  /** Let Lead assignment rules run on create (default true). */
  autoAssign: z.boolean().optional(),
  /** The org's duplicate rules: let their verdict stand (default), or save over their alerts. */
  duplicateRules: z.enum(['respect', 'allowSave']).optional(),
  /** How long a call to the org waits for its answer, in seconds (default 60). */
  requestTimeoutSeconds: z.number().positive().optional(),
  /** The events' workspace to read (default `default`). */
  workspace: z.string().min(1).optional(),
  /** Bulk API 2.0 thresholds, or false for REST and composite calls only. */
  bulk: z
    .union([
      z.literal(false),
      z.strictObject({
        writeThreshold: z.number().int().positive().optional(),
        readThreshold: z.number().int().positive().optional(),
      }),
    ])
    .optional(),
  /** Per object, a record type and constant values for the records the sync creates. */
  createDefaults: z
    .partialRecord(
      z.enum(crmObjects),
      z.strictObject({
        recordTypeId: z
          .string()
          .regex(/^012[A-Za-z0-9]{12}(?:[A-Za-z0-9]{3})?$/, {
            message: 'a record type id starts with 012 and has 15 or 18 characters',
          })
          .optional(),
        fields: z
          .record(
            z.string().regex(/^\w+$/, { message: 'a field API name' }),
            z.union([z.string(), z.number(), z.boolean()]),
          )
          .optional(),
      }),
    )
    .optional(),
});

export interface SyncConfig {
  readonly settings: Partial<ExportSettings>;
  readonly motions: readonly Motion[];
  readonly facts: SyncFacts;
  readonly ownerSync: boolean;
  readonly unreadable: readonly string[];
  readonly autoAssign: boolean;
  /** `respect` (default) or `allowSave`: see `ApplyOptions.duplicateRules`. */
  readonly duplicateRules: 'respect' | 'allowSave';
  readonly workspace: string;
  readonly bulk: BulkOptions | false;
  /** Record type and constant values of created records, per object (checked against describe). */
  readonly createDefaults: CreateDefaultsByObject;
  /** `--request-timeout` from the config file, if set there. */
  readonly requestTimeoutSeconds: number | undefined;
}

/** Validates a parsed config; `source` names it in messages. */
function parseConfig(value: unknown, source: string): SyncConfig {
  const parsed = Config.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.join('.') || '(top level)'}: ${i.message}`,
    );
    throw new CliError(EXIT.usage, `${source} is not a valid config: ${issues.join('; ')}`);
  }
  const { settings = {}, motions = [], facts = {}, ...rest } = parsed.data;
  let mappings: readonly FieldMapping[] | undefined;
  try {
    mappings = settings.mappings
      ? defineFieldMappings(settings.mappings as FieldMapping[])
      : undefined;
  } catch (error) {
    if (error instanceof CrmSyncError) {
      throw new CliError(
        EXIT.usage,
        `${source}: settings.mappings: ${error.issues.join('; ') || error.message}`,
      );
    }
    throw error;
  }
  const { mappings: _raw, ...flags } = settings;
  return {
    settings: { ...flags, ...(mappings ? { mappings } : {}) } as Partial<ExportSettings>,
    motions: motions as Motion[],
    facts: facts as SyncFacts,
    ownerSync: rest.ownerSync ?? false,
    unreadable: rest.unreadable ?? [],
    autoAssign: rest.autoAssign ?? true,
    duplicateRules: rest.duplicateRules ?? 'respect',
    workspace: rest.workspace ?? 'default',
    bulk: (rest.bulk ?? {}) as BulkOptions | false,
    createDefaults: (rest.createDefaults ?? {}) as CreateDefaultsByObject,
    requestTimeoutSeconds: rest.requestTimeoutSeconds,
  };
}

export async function loadConfig(path: string | undefined): Promise<SyncConfig> {
  if (path === undefined) return parseConfig({}, 'the default config'); // every default
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      EXIT.usage,
      `Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(EXIT.usage, `${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseConfig(value, path);
}
