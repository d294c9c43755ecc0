/**
 * The sync planner: decides, without talking to the org, which records get which field values,
 * which are created and which feed posts are made, each with the reason it is there.
 */
import type { CompanyAggregate, ContactAggregate, ObservedCompany } from '@service/lookup-contract';
import { customFields, customFieldsOf, type FieldMetadata } from '../model/catalogue.js';
import { emailMatchKey, parseDomain, registrableDomain } from '../model/domain.js';
import type { CrmObject, FieldValue } from '../model/objects.js';
import { defineFieldMappings } from './field-mappings.js';
import {
  type CrmFacts,
  type SyncSubject,
  toFieldValues,
  type WriteOperation,
} from './field-values.js';
import { checkMotions, motionMatches } from './motions.js';
import {
  type CustomerTypes,
  computePipelineStage,
  type PipelineStageResult,
} from './pipeline-stage.js';
import { holdsValue, recordsById } from './stored-values.js';
import { timelineText } from './timeline.js';
import {
  type CreateStep,
  type CrmFieldValues,
  type CrmSnapshot,
  defaultExportSettings,
  type ExportSettings,
  type FeedPostStep,
  type Motion,
  type MotionAction,
  type PlanStep,
  type PlanSyncInput,
  type SkipCode,
  type SkipStep,
  type SubjectRef,
  type SyncFacts,
  type SyncPlan,
  type UpdateStep,
} from './types.js';

/** A record: an existing one by id, or one created earlier in the plan by its key. */
type Target = FeedPostStep['target'];
/** Where a company's data goes: an Account, a create in this plan, or nowhere (and why not). */
type CompanyTarget =
  | { readonly kind: 'record'; readonly target: Target }
  | { readonly kind: 'none'; readonly code: SkipCode | null; readonly canCreate: boolean };
/** What the planner decided for an observed company; its people build on it. */
interface PlannedCompany {
  readonly target: CompanyTarget;
  /** The Pipeline Stage of its Account; null without one. */
  readonly stage: PipelineStageResult | null;
  /** The registrable domain (the domain as given when it has none). */
  readonly domain: string;
}
type PersonSubject = Extract<SyncSubject, { kind: 'contact' }>;

function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

/**
 * How the org stores `field` of `object`: the catalogue's metadata, or for a mapped field that of
 * the catalogue field with the same source (a mapping of `sessions` holds a count).
 */
function fieldMetadata(
  object: CrmObject,
  field: string,
  settings: ExportSettings,
): FieldMetadata | undefined {
  const own = customFieldsOf(object).find((f) => f.apiName === field);
  if (own !== undefined) return own.metadata;
  const mapping = settings.mappings.find((m) => m.object === object && m.apiName === field);
  return customFields.find((f) => f.source === mapping?.source)?.metadata;
}

/** The idempotency key of the Account created for `domain`; settle() looks for it too. */
const accountKey = (domain: string) => `Account:${domain}`;

function byString<T>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

class Planner {
  readonly updates: UpdateStep[] = [];
  readonly accountCreates: CreateStep[] = [];
  readonly personCreates: CreateStep[] = [];
  readonly feedPosts: FeedPostStep[] = [];
  readonly skips: SkipStep[] = [];
  readonly createKeys = new Set<string>();
  readonly seenDomains = new Set<string>();
  readonly seenEmails = new Set<string>();
  readonly accountsByDomain;
  readonly contactsByEmail;
  readonly leadsByEmail;
  readonly opportunitiesByAccount;
  /** Records by id, with the Service values they hold, to leave out what would not change. */
  readonly recordsById: Map<string, CrmFieldValues>;

  constructor(
    crm: CrmSnapshot,
    readonly settings: ExportSettings,
    readonly motions: readonly Motion[],
    readonly facts: SyncFacts,
    readonly customerTypes: CustomerTypes | undefined,
    readonly full: boolean,
  ) {
    this.accountsByDomain = groupBy(crm.accounts, (a) =>
      a.Website ? registrableDomain(a.Website) : null,
    );
    this.contactsByEmail = groupBy(crm.contacts, (c) => (c.Email ? emailMatchKey(c.Email) : null));
    this.leadsByEmail = groupBy(crm.leads, (l) => (l.Email ? emailMatchKey(l.Email) : null));
    this.opportunitiesByAccount = groupBy(crm.opportunities ?? [], (o) => o.AccountId ?? null);
    this.recordsById = recordsById(crm);
  }

  skip(
    subject: SubjectRef,
    code: SkipCode,
    reason: string,
    candidates: readonly string[] = [],
  ): void {
    this.skips.push({ type: 'skip', code, candidates, subject, reason });
  }

  values(subject: SyncSubject, object: CrmObject, operation: WriteOperation) {
    return toFieldValues(subject, { object, operation, mappings: this.settings.mappings });
  }

  update(
    subject: SubjectRef,
    from: SyncSubject,
    object: CrmObject,
    id: string,
    reason: string,
  ): void {
    if (!this.settings.updateExisting) {
      this.skip(
        subject,
        'not-enabled',
        `${object} ${id} matches, but 'Update existing Accounts and Leads' is off`,
        [id],
      );
      return;
    }
    const planned = this.values(from, object, 'update');
    if (Object.keys(planned).length === 0) {
      this.skip(subject, 'no-values', `${object} ${id} matches, but there is nothing to write`, [
        id,
      ]);
      return;
    }
    const fields = this.full ? planned : this.changed(object, id, planned);
    if (Object.keys(fields).length === 0) {
      const count = Object.keys(planned).length;
      this.skip(subject, 'unchanged', `${object} ${id} already holds the ${count} values`, [id]);
      return;
    }
    this.updates.push({ type: 'update', object, id, fields, subject, reason });
  }

  /** The planned fields whose value differs from the one the record holds (when it was read). */
  changed(
    object: CrmObject,
    id: string,
    planned: Readonly<Record<string, FieldValue>>,
  ): Record<string, FieldValue> {
    const record = this.recordsById.get(id);
    if (record === undefined) return { ...planned };
    return Object.fromEntries(
      Object.entries(planned).filter(
        ([field, value]) =>
          !Object.hasOwn(record, field) ||
          !holdsValue(value, record[field], fieldMetadata(object, field, this.settings)),
      ),
    );
  }

  create(step: Omit<CreateStep, 'type'>, into: CreateStep[]): Target {
    // Keys are unique per plan: a subject observed twice is created once.
    if (!this.createKeys.has(step.idempotencyKey)) {
      this.createKeys.add(step.idempotencyKey);
      into.push({ type: 'create', ...step });
    }
    return { object: step.object, idempotencyKey: step.idempotencyKey };
  }

  company(observed: ObservedCompany): PlannedCompany {
    const { company } = observed;
    const parsed = parseDomain(company.domain);
    const domain = parsed.ok ? parsed.domain : company.domain;
    const subject: SubjectRef = { kind: 'company', domain };
    // Nothing is written for the company (a skip step with `code` says why).
    const nowhere = (code: SkipCode): PlannedCompany => ({
      target: { kind: 'none', code, canCreate: false },
      stage: null,
      domain,
    });
    if (!parsed.ok) {
      const reason = `${JSON.stringify(company.domain)} has no registrable domain (${parsed.reason})`;
      this.skip(subject, 'invalid-domain', reason);
      return nowhere('invalid-domain');
    }
    if (parsed.freeMail) {
      const reason = `${domain} is a free-mail domain: it identifies people, never a company`;
      this.skip(subject, 'free-mail', reason);
      return nowhere('free-mail');
    }
    if (this.seenDomains.has(domain)) {
      const reason = `${domain} was observed more than once; planned once`;
      this.skip(subject, 'duplicate-subject', reason);
      return nowhere('duplicate-subject');
    }
    this.seenDomains.add(domain);
    const matches = this.accountsByDomain.get(domain) ?? [];
    const facts: CrmFacts = { ...this.facts.companies?.[domain] };
    const from: SyncSubject = { kind: 'company', company, facts };
    const accountId = this.only(
      subject,
      'Account',
      matches.map((a) => a.Id),
      domain,
    );
    if (accountId === 'skipped') return nowhere('ambiguous');
    const account = matches[0];
    if (account !== undefined) {
      const stage = computePipelineStage({
        accountType: account.Type ?? null,
        customerTypes: this.customerTypes,
        opportunities: (this.opportunitiesByAccount.get(account.Id) ?? []).map((o) => ({
          isClosed: o.IsClosed,
          isWon: o.IsWon,
        })),
      });
      this.update(
        subject,
        from,
        'Account',
        account.Id,
        `Account ${account.Id} has the website domain ${domain}`,
      );
      return {
        target: { kind: 'record', target: { object: 'Account', id: account.Id } },
        stage,
        domain,
      };
    }
    if (this.settings.createAccounts) {
      const target = this.createAccount(company, domain, null, 'export setting: create Accounts');
      return { target: { kind: 'record', target }, stage: null, domain };
    }
    return { target: { kind: 'none', code: null, canCreate: true }, stage: null, domain };
  }

  /** A company with no Account that no step created one for is accounted for by a skip. */
  settle(company: PlannedCompany): void {
    const { target, domain } = company;
    if (target.kind === 'none' && target.canCreate && !this.createKeys.has(accountKey(domain))) {
      this.skip(
        { kind: 'company', domain },
        'not-enabled',
        `no Account has the website domain ${domain}, and no export setting or motion creates one`,
      );
    }
  }

  /** `domain` is the company's registrable domain, as `company()` found it. */
  createAccount(
    company: CompanyAggregate,
    domain: string,
    motion: string | null,
    reason: string,
  ): Target {
    const facts: CrmFacts = { ...this.facts.companies?.[domain], motion };
    return this.create(
      {
        object: 'Account',
        fields: this.values({ kind: 'company', company, facts }, 'Account', 'create'),
        idempotencyKey: accountKey(domain),
        duplicateCheck: { object: 'Account', field: 'Website', value: domain },
        links: {},
        motion,
        subject: { kind: 'company', domain },
        reason: `no Account has the website domain ${domain}; ${reason}`,
      },
      this.accountCreates,
    );
  }

  person(observed: ObservedCompany, contact: ContactAggregate, company: PlannedCompany): void {
    const email = emailMatchKey(contact.email);
    const subject: SubjectRef = {
      kind: 'contact',
      email: email ?? contact.email,
      domain: company.domain,
    };
    if (email === null) {
      this.skip(
        subject,
        'invalid-email',
        `${JSON.stringify(contact.email)} is not an email address`,
      );
      return;
    }
    if (this.seenEmails.has(email)) {
      this.skip(subject, 'duplicate-subject', `${email} was observed more than once; planned once`);
      return;
    }
    this.seenEmails.add(email);
    const personFacts = this.facts.contacts?.[email] ?? {};
    const icps = this.facts.companies?.[company.domain]?.icps ?? [];
    const context = { contact, stage: company.stage, personas: personFacts.personas ?? [], icps };
    const matched = this.motions.filter((m) => motionMatches(m, context));
    const wanting = (action: MotionAction) =>
      matched.find((m) => m.actions.includes(action)) ?? null;
    const from: PersonSubject = {
      kind: 'contact',
      contact,
      company: observed.company,
      facts: personFacts,
    };

    const match = this.matchPerson(subject, email, from);
    // An ambiguous or unroutable person gets nothing written anywhere, feed posts included.
    if (match === 'skipped') return;
    const record = match ?? this.createPerson(subject, email, from, observed, company, wanting);
    for (const motion of matched.filter((m) => m.actions.includes('postTimeline'))) {
      const target = record ?? (company.target.kind === 'record' ? company.target.target : null);
      if (target === null) {
        this.skip(
          subject,
          'no-record',
          `motion '${motion.name}' posts a timeline, but ${email} has no CRM record to post on`,
        );
        continue;
      }
      this.feedPosts.push({
        type: 'feedPost',
        target,
        text: timelineText(contact, motion.name),
        motion: motion.name,
        idempotencyKey: `FeedItem:${motion.name}:${email}:${contact.lastSeen}`,
        subject,
        reason: `motion '${motion.name}' matched and posts a session timeline`,
      });
    }
  }

  /** The one id of `ids`; with several, a skip: nothing is written to any of them. */
  only(
    subject: SubjectRef,
    object: CrmObject,
    ids: readonly string[],
    key: string,
  ): string | 'skipped' | undefined {
    if (ids.length > 1) {
      this.skip(
        subject,
        'ambiguous',
        `${ids.length} ${object}s match ${key}: nothing written to any of them`,
        ids,
      );
      return 'skipped';
    }
    return ids[0];
  }

  /** The record a person's data goes to, `null` when none exists, or `'skipped'` (with a skip step). */
  matchPerson(subject: SubjectRef, email: string, from: SyncSubject): Target | 'skipped' | null {
    const leads = this.leadsByEmail.get(email) ?? [];
    const converted = leads.filter((l) => l.IsConverted === true);
    const contactIds = new Set((this.contactsByEmail.get(email) ?? []).map((c) => c.Id));
    for (const lead of converted)
      if (lead.ConvertedContactId) contactIds.add(lead.ConvertedContactId);
    const contactId = this.only(subject, 'Contact', [...contactIds], email);
    if (contactId === 'skipped') return contactId;
    if (contactId !== undefined) {
      const via = converted.find((l) => l.ConvertedContactId === contactId);
      const reason = via
        ? `Lead ${via.Id} with email ${email} was converted to Contact ${contactId}`
        : `Contact ${contactId} has the email ${email} (a Contact beats a Lead)`;
      this.update(subject, from, 'Contact', contactId, reason);
      return { object: 'Contact', id: contactId };
    }
    const open = leads.filter((l) => l.IsConverted !== true);
    const leadId = this.only(
      subject,
      'Lead',
      open.map((l) => l.Id),
      email,
    );
    if (leadId === 'skipped') return leadId;
    if (leadId !== undefined) {
      this.update(subject, from, 'Lead', leadId, `Lead ${leadId} has the email ${email}`);
      return { object: 'Lead', id: leadId };
    }
    if (converted.length > 0) {
      const ids = converted.map((l) => l.Id);
      this.skip(
        subject,
        'converted-lead',
        `Lead ${ids.join(', ')} with email ${email} was converted and its Contact is unknown: a converted Lead cannot be updated`,
        ids,
      );
      return 'skipped';
    }
    return null;
  }

  createPerson(
    subject: SubjectRef,
    email: string,
    from: PersonSubject,
    observed: ObservedCompany,
    company: PlannedCompany,
    wanting: (action: MotionAction) => Motion | null,
  ): Target | null {
    const contactMotion = wanting('createAccountAndContact');
    const leadMotion = wanting('createLead');
    const fieldsFor = (object: CrmObject, motion: Motion | null) =>
      this.values(
        { ...from, facts: { ...from.facts, motion: motion?.name ?? null } },
        object,
        'create',
      );
    if (this.settings.createContacts || contactMotion !== null) {
      const why = contactMotion
        ? `motion '${contactMotion.name}' creates an Account and Contact`
        : 'export setting: create Contacts';
      let account = company.target.kind === 'record' ? company.target.target : null;
      if (
        account === null &&
        contactMotion !== null &&
        company.target.kind === 'none' &&
        company.target.canCreate
      ) {
        account = this.createAccount(observed.company, company.domain, contactMotion.name, why);
      }
      if (account !== null) {
        const links: Record<string, string> = {};
        const fields = fieldsFor('Contact', contactMotion);
        if ('id' in account) fields.AccountId = account.id;
        else links.AccountId = account.idempotencyKey;
        return this.create(
          {
            object: 'Contact',
            fields,
            idempotencyKey: `Contact:${email}`,
            duplicateCheck: { object: 'Contact', field: 'Email', value: email },
            links,
            motion: contactMotion?.name ?? null,
            subject,
            reason: `no Contact or Lead has the email ${email}; ${why}`,
          },
          this.personCreates,
        );
      }
      if (!this.settings.createLeads && leadMotion === null) {
        this.skip(
          subject,
          'no-account',
          `${why}, but ${company.domain} has no Account to attach a Contact to (${company.target.kind === 'none' && company.target.code !== null ? company.target.code : 'creating Accounts is off'})`,
        );
        return null;
      }
    }
    if (this.settings.createLeads || leadMotion !== null) {
      return this.create(
        {
          object: 'Lead',
          fields: fieldsFor('Lead', leadMotion),
          idempotencyKey: `Lead:${email}`,
          duplicateCheck: { object: 'Lead', field: 'Email', value: email },
          links: {},
          motion: leadMotion?.name ?? null,
          subject,
          reason: `no Contact or Lead has the email ${email}; ${leadMotion ? `motion '${leadMotion.name}' creates a Lead` : 'export setting: create Leads'}`,
        },
        this.personCreates,
      );
    }
    this.skip(
      subject,
      'not-enabled',
      `no Contact or Lead has the email ${email}, and no export setting or motion creates one`,
    );
    return null;
  }
}

/**
 * Plans a sync: matches every observed company (by normalised website domain) and person (by
 * email; a Contact beats a Lead) to CRM records, and says which get which field values, which are
 * created, which feed posts are made, and which are skipped, each with its reason. Every observed
 * company and person is accounted for by at least one step. Pure and deterministic: the same input
 * gives the same plan. Throws `CrmSyncError` for invalid motions or mappings.
 *
 * Given `observed` as an async iterable (`store.readAggregates()`), it reads it to the end and
 * answers a Promise of the plan, rejected with `CrmSyncError` for the same reasons.
 */
export function planSync(
  input: PlanSyncInput & { readonly observed: Iterable<ObservedCompany> },
): SyncPlan;
export function planSync(
  input: PlanSyncInput & { readonly observed: AsyncIterable<ObservedCompany> },
): Promise<SyncPlan>;
export function planSync(input: PlanSyncInput): SyncPlan | Promise<SyncPlan>;
export function planSync(input: PlanSyncInput): SyncPlan | Promise<SyncPlan> {
  const { observed } = input;
  if (Symbol.asyncIterator in observed) {
    return (async () => {
      const companies: ObservedCompany[] = [];
      for await (const company of observed) companies.push(company);
      return planObserved(input, companies);
    })();
  }
  return planObserved(input, observed);
}

/** The plan of `input` over `observed`, read whole. */
function planObserved(input: PlanSyncInput, observed: Iterable<ObservedCompany>): SyncPlan {
  const settings: ExportSettings = { ...defaultExportSettings, ...input.settings };
  defineFieldMappings(settings.mappings);
  const motions = input.motions ?? [];
  checkMotions(motions);
  const planner = new Planner(
    input.crm,
    settings,
    motions,
    input.facts ?? {},
    input.customerTypes,
    input.full === true,
  );
  for (const entry of [...observed].sort(byString((o) => o.company.domain))) {
    const company = planner.company(entry);
    const contacts = [...entry.contacts].sort(byString((c) => c.email));
    for (const contact of contacts) planner.person(entry, contact, company);
    planner.settle(company);
  }
  const steps: PlanStep[] = [
    ...planner.updates,
    ...planner.accountCreates,
    ...planner.personCreates,
    ...planner.feedPosts,
    ...planner.skips,
  ];
  return {
    steps,
    summary: {
      updates: planner.updates.length,
      creates: planner.accountCreates.length + planner.personCreates.length,
      feedPosts: planner.feedPosts.length,
      skips: planner.skips.length,
      ambiguous: planner.skips.filter((s) => s.code === 'ambiguous').length,
    },
  };
}
