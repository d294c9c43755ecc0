/**
 * The inputs and the output of `planSync`: what the CRM holds, what the service observed, the
 * export settings and motions, and the plan of steps. A step is an update, a create, a feed post
 * or a skip: there is no delete step, so no plan can delete a record.
 */
import type { ObservedCompany, PurchaseIntent } from '@service/lookup-contract';
import type { CrmObject, FieldValue } from '../model/objects.js';
import type { FieldMapping } from './field-mappings.js';
import type { CustomerTypes, PipelineStage } from './pipeline-stage.js';

/**
 * Columns read beside the baseline: the Service fields a plan may set, by API name, with the
 * value the org holds (null when empty). A field absent from the record was not read, and is
 * written whatever its value.
 */
export interface CrmFieldValues {
  readonly [field: string]: unknown;
}

/** An Account as the SOQL of `buildQuery('Account')` returns it (extra fields are ignored). */
export interface CrmAccount extends CrmFieldValues {
  readonly Id: string;
  readonly Name?: string | null;
  readonly Website?: string | null;
  readonly Type?: string | null;
}
/** A Contact as read for matching and planning. */
export interface CrmContact extends CrmFieldValues {
  readonly Id: string;
  readonly Email?: string | null;
  readonly AccountId?: string | null;
}
/** A Lead as read for matching and planning, with its conversion fields. */
export interface CrmLead extends CrmFieldValues {
  readonly Id: string;
  readonly Email?: string | null;
  readonly IsConverted?: boolean | null;
  readonly ConvertedContactId?: string | null;
}
/** An Opportunity as read for the Pipeline Stage. */
export interface CrmOpportunity {
  readonly Id?: string;
  readonly AccountId?: string | null;
  readonly IsClosed: boolean;
  readonly IsWon: boolean;
}

/** What the CRM holds, read with `buildQuery`. */
export interface CrmSnapshot {
  readonly accounts: readonly CrmAccount[];
  readonly contacts: readonly CrmContact[];
  readonly leads: readonly CrmLead[];
  readonly opportunities?: readonly CrmOpportunity[];
}

/** Which records a sync updates and creates, and the extra fields it writes. */
export interface ExportSettings {
  /** 'Update existing Accounts and Leads' (also Contacts, which beat Leads). Default true. */
  readonly updateExisting: boolean;
  /** 'Create new Leads for identified visitors' for everyone (a motion can do it for some). Default false. */
  readonly createLeads: boolean;
  /** Create an Account for an observed company the CRM does not have. Default false. */
  readonly createAccounts: boolean;
  /** Create a Contact for an observed person the CRM does not have. Default false. */
  readonly createContacts: boolean;
  /** Property-sync mappings, validated by `defineFieldMappings`. Default none. */
  readonly mappings: readonly FieldMapping[];
}

/** Update matched records; create none. */
export const defaultExportSettings: ExportSettings = Object.freeze({
  updateExisting: true,
  createLeads: false,
  createAccounts: false,
  createContacts: false,
  mappings: Object.freeze([]),
});

/** Every `MotionAction`, for validating input. */
export const motionActions = ['createLead', 'createAccountAndContact', 'postTimeline'] as const;
/**
 * What a motion does when it matches: create a Lead, create an Account and a Contact, or post a
 * session timeline.
 */
export type MotionAction = (typeof motionActions)[number];

/** All given conditions must hold; within a list, any value matches. */
export interface MotionConditions {
  /** The Pipeline Stage of the person's company Account (no Account: no stage, no match). */
  readonly pipelineStages?: readonly PipelineStage[];
  readonly purchaseIntent?: readonly PurchaseIntent[];
  readonly personas?: readonly string[];
  /** ICPs matched by the person's company. */
  readonly icps?: readonly string[];
  readonly signals?: readonly string[];
  readonly minSessions?: number;
}

/** An automation, as data: evaluated for every observed person. */
export interface Motion {
  readonly name: string;
  readonly conditions: MotionConditions;
  readonly actions: readonly MotionAction[];
}

/** CRM-side facts by company domain and by email (matched personas and ICPs, identification). */
export interface SyncFacts {
  readonly companies?: Readonly<
    Record<string, { readonly icps?: readonly string[]; readonly personas?: readonly string[] }>
  >;
  readonly contacts?: Readonly<
    Record<
      string,
      {
        readonly personas?: readonly string[];
        readonly creationSource?: string;
        readonly idConfidence?: PurchaseIntent;
      }
    >
  >;
}

/** Who a step is for: an observed company or person. */
export type SubjectRef =
  | { readonly kind: 'company'; readonly domain: string }
  | { readonly kind: 'contact'; readonly email: string; readonly domain: string };

/** Write fields to an existing record. */
export interface UpdateStep {
  readonly type: 'update';
  readonly object: CrmObject;
  readonly id: string;
  readonly fields: Readonly<Record<string, FieldValue>>;
  readonly subject: SubjectRef;
  readonly reason: string;
}

/**
 * How a re-run finds the record an earlier run created: before creating, query `object` for
 * `field` equal to `value` (for `Website`, compare `registrableDomain` of each candidate with
 * `value`, never a substring) and skip the create when one exists.
 */
export interface DuplicateCheck {
  readonly object: CrmObject;
  readonly field: 'Email' | 'Website';
  readonly value: string;
}

/** Create a record, after a duplicate check by its `idempotencyKey`. */
export interface CreateStep {
  readonly type: 'create';
  readonly object: CrmObject;
  readonly fields: Readonly<Record<string, FieldValue>>;
  /** Deterministic from the subject (`Lead:jane@acme.com`): equal across runs, unique in a plan. */
  readonly idempotencyKey: string;
  readonly duplicateCheck: DuplicateCheck;
  /** Fields to fill with the id of a record created earlier in the plan, by its idempotency key. */
  readonly links: Readonly<Record<string, string>>;
  /** The motion that called for it; null when an export setting did. */
  readonly motion: string | null;
  readonly subject: SubjectRef;
  readonly reason: string;
}

/** Post a session timeline on a record's feed. */
export interface FeedPostStep {
  readonly type: 'feedPost';
  /** The record to post on: an existing id, or a record created earlier in the plan. */
  readonly target:
    | { readonly object: CrmObject; readonly id: string }
    | { readonly object: CrmObject; readonly idempotencyKey: string };
  readonly text: string;
  readonly motion: string;
  /** Equal across runs for the same activity: an executor can skip a post it already made. */
  readonly idempotencyKey: string;
  readonly subject: SubjectRef;
  readonly reason: string;
}

/** Why a subject gets no write. */
export type SkipCode =
  | 'ambiguous'
  | 'converted-lead'
  | 'free-mail'
  | 'invalid-domain'
  | 'invalid-email'
  | 'duplicate-subject'
  | 'not-enabled'
  | 'no-values'
  | 'no-account'
  | 'no-record'
  | 'unchanged';

/** A subject the sync writes nothing for, and why. */
export interface SkipStep {
  readonly type: 'skip';
  readonly code: SkipCode;
  /** The CRM records involved (e.g. every candidate of an ambiguous match). */
  readonly candidates: readonly string[];
  readonly subject: SubjectRef;
  readonly reason: string;
}

/** One step of a plan. There is no delete step. */
export type PlanStep = UpdateStep | CreateStep | FeedPostStep | SkipStep;

/** What a sync would write, as `planSync` decided it: steps with their reasons, and the counts. */
export interface SyncPlan {
  /** Updates, then creates (Accounts before the Contacts that link to them), feed posts, skips. */
  readonly steps: readonly PlanStep[];
  readonly summary: {
    readonly updates: number;
    readonly creates: number;
    readonly feedPosts: number;
    readonly skips: number;
    readonly ambiguous: number;
  };
}

/** What `planSync` plans from: the org's records, what the service observed, and the settings. */
export interface PlanSyncInput {
  readonly crm: CrmSnapshot;
  /**
   * The companies the lookup observed: an array (or any iterable), or an async iterable such as
   * `@service/lookup-core`'s `store.readAggregates()`, in which case `planSync` answers a Promise.
   */
  readonly observed: Iterable<ObservedCompany> | AsyncIterable<ObservedCompany>;
  /** Missing settings take their defaults (`defaultExportSettings`). */
  readonly settings?: Partial<ExportSettings>;
  readonly motions?: readonly Motion[];
  readonly facts?: SyncFacts;
  /** Account Types that make the Pipeline Stage `Customer` (default: any starting with `Customer`). */
  readonly customerTypes?: CustomerTypes;
  /**
   * Write every planned field, even those the org already holds (default false: an update
   * carries only the fields whose stored value differs, and a record with none left is a skip
   * with code `unchanged`).
   */
  readonly full?: boolean;
}
