// A Salesforce org on loopback (node:http, port 0) for the test suite and the benchmark:
// OAuth token/authorize/identity, REST v59.0 (query with paging, describe, create, update,
// composite collections, limits, feed elements), Tooling query and the Metadata SOAP API.
// Every request is recorded; faults are injected per route and must be hit.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_DISABLED_ANSWERS, type ApiDisabled } from './api-disabled.ts';
import { AUTHORIZE_PATH, AuthorizePages, authorizeOverHttp, LOGIN_PATH } from './authorize.ts';
import { BulkApi } from './bulk.ts';
import { CHATTER_LIMIT_ANSWER, ChatterHourlyLimit } from './chatter-limit.ts';
import { allowsSave, duplicatesOf } from './duplicate-rules.ts';
import { invalidEmail } from './email-format.ts';
import { feedItemBody, feedText, type MessageSegment } from './feed-body.ts';
import { tooLong } from './field-lengths.ts';
import { fault, handleMetadata, loadSchema, type Schema, schemaErrors } from './metadata.ts';
import { Org, type ProfileSetup, type SfRecord, WRITABLE } from './org.ts';
import { installPersonAccounts } from './person-accounts.ts';
import { installRecordTypes, recordTypeInfos, withRecordType } from './record-types.ts';
import { REFRESH_REFUSALS, type RefreshRefusal } from './refresh-refusals.ts';
import type { Fault, FaultSpec, RecordedRequest } from './requests.ts';
import { restrictedRefusal } from './restricted-picklists.ts';
import {
  answer,
  badOAuthToken,
  type Call,
  escapeRegExp,
  type RestCall,
  type Route,
} from './routes.ts';
import { hiddenBySharing, installAccessObjects, insufficientAccess } from './sharing.ts';
import { attributes, isCountQuery, runSoql, SoqlError } from './soql.ts';
import { addressRefusal, enableStateCountryPicklists } from './state-country-picklists.ts';
import {
  type ThrowingTriggerOption,
  type TriggerPredicate,
  triggerError,
  triggerPredicate,
} from './throwing-trigger.ts';
import { failsValidation, installValidationRule } from './validation-rule.ts';

export type { FaultKind, FaultSpec, RecordedRequest } from './requests.ts';

/** How the emulated org behaves; `presetOptions` gives those of a preset. */
export interface EmulatorOptions {
  /** The loopback port `startEmulator` listens on (default 0: a free one). */
  port?: number;
  profile?: ProfileSetup;
  /** Query page size (Salesforce's default batch is 2000). */
  pageSize?: number;
  /**
   * Child records a subquery nests per parent in one answer (default 200); the rest come behind
   * the child list's own `nextRecordsUrl`. Salesforce documents no fixed figure: child records
   * count toward the batch size, whose minimum is 200.
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_queryoptions.htm
   */
  childPageSize?: number;
  /** Daily API request allocation reported in Sforce-Limit-Info and /limits. */
  apiMax?: number;
  clientId?: string;
  /** The connected app's consumer secret (default `emulator-secret`). */
  clientSecret?: string;
  /** The password of the org's user on the login page (default `emulator-password`). */
  password?: string;
  /**
   * "Require Secret for Web Server Flow" and "Require Secret for Refresh Token Flow", both on by
   * default in Salesforce; false models a public (PKCE-only) client such as a CLI's.
   * https://help.salesforce.com/s/articleView?id=sf.connected_app_create_api_integration.htm
   */
  requireSecret?: boolean;
  /**
   * Refresh token rotation: each refresh answers a new refresh token and revokes the one used.
   * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm
   */
  rotateRefreshTokens?: boolean;
  /**
   * Validate Metadata envelopes against Salesforce's XSD when it is on this machine (default
   * true; the benchmark turns it off so its timings are the client's, not xmllint's).
   */
  validateSchema?: boolean;
  /**
   * An active Lead assignment rule that hands every Lead created or updated through REST to a
   * queue user unless the request says `Sforce-Auto-Assign: FALSE` (default on, as in an org
   * that routes its Leads).
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_autoassign.htm
   */
  leadAssignmentRule?: boolean;
  /**
   * Milliseconds an idle kept-alive connection stays open before the server closes it (Node's
   * default 5,000). Servers close idle connections whenever they like; a short time shows a
   * client that sends on a connection the server has already closed.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How far the org's clock is from this machine's, in seconds (negative: this machine is
   * ahead). Record stamps and each answer's `Date` header follow the org's clock.
   */
  clockOffsetSeconds?: number;
  /**
   * Refuse text longer than its field's length with STRING_TOO_LONG (default off).
   * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
   */
  fieldLengths?: boolean;
  /**
   * The standard Account, Contact and Lead duplicate rules (duplicate-rules.ts): a matching create
   * is refused with DUPLICATES_DETECTED unless `Sforce-Duplicate-Rule-Header: allowSave=true`.
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_duplicaterules.htm
   */
  duplicateRules?: boolean;
  /**
   * Chatter's hourly rate limit: feed posts past this many an hour are answered 503 (default:
   * none). See chatter-limit.ts.
   */
  chatterHourlyLimit?: number | false;
  /** The org's API is off for the org or the user: REST answers 403 (see api-disabled.ts). */
  apiDisabled?: ApiDisabled;
  /** An Account/Contact/Lead trigger that throws, failing its whole chunk (throwing-trigger.ts). */
  throwingTrigger?: ThrowingTriggerOption;
  /**
   * State and Country/Territory Picklists: address code fields in describe, integration values
   * and states checked (FIELD_INTEGRITY_EXCEPTION; default off).
   * https://help.salesforce.com/s/articleView?id=xcloud.admin_state_country_picklists_integ_values.htm&type=5
   */
  stateCountryPicklists?: boolean;
  /** Refuse an email field's value that is not an address with INVALID_EMAIL_ADDRESS (default off). */
  emailFormat?: boolean;
  /** Private sharing on Account, Contact and Lead: others' records hidden (sharing.ts). */
  limitedSharing?: boolean;
  /** Person accounts on: Account.IsPersonAccount (person-accounts.ts). */
  personAccounts?: boolean;
  /** Record types on Account, Contact and Lead (record-types.ts). */
  recordTypes?: boolean;
  /** A create-time validation rule: a Lead needs an Industry (validation-rule.ts). */
  validationRule?: boolean;
}

const ERRORS = {
  session: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
  notFound: [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }],
  unavailable: [
    { errorCode: 'SERVER_UNAVAILABLE', message: 'Server temporarily unavailable, try again later' },
  ],
  limit: [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }],
  concurrent: [
    {
      message: 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.',
      errorCode: 'REQUEST_LIMIT_EXCEEDED',
    },
  ],
};

/**
 * The longest URI and headers together, in bytes: past it Salesforce answers 414.
 * https://help.salesforce.com/s/articleView?id=000386264&type=1
 */
const MAX_URI_AND_HEADERS = 16_384;

/** The bytes of a request's URI and header lines. */
function uriAndHeaderBytes(req: IncomingMessage): number {
  let bytes = Buffer.byteLength(req.url ?? '');
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    bytes += Buffer.byteLength(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
  }
  return bytes;
}

/**
 * Whether a REST create or update runs the active assignment rules: unless the Assignment Rule
 * header says FALSE (case-insensitive), and when it is missing too (its default is TRUE).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_autoassign.htm
 */
function assigns(req: IncomingMessage): boolean {
  return String(req.headers['sforce-auto-assign'] ?? 'TRUE').toUpperCase() !== 'FALSE';
}

/** The most type chunks one sObject Collections request may hold. */
const MAX_CHUNKS = 10;

/** Runs of consecutive records of one type. */
function chunksOf(records: readonly Record<string, unknown>[]): number {
  const typeOf = (r: Record<string, unknown>) =>
    (r.attributes as { type?: string } | undefined)?.type;
  return records.filter((r, i) => i === 0 || typeOf(r) !== typeOf(records[i - 1] ?? {})).length;
}

/** A running emulated org: its HTTP server on loopback, the org it holds and the requests it answered. */
export class Emulator {
  readonly org: Org;
  readonly requests: RecordedRequest[] = [];
  /** Schema validation failures of Metadata request envelopes (should stay empty). */
  readonly schemaErrors: string[] = [];
  readonly schema: Schema | { missing: string };
  url = '';
  private readonly faults: Fault[] = [];
  private readonly accessTokens = new Set<string>();
  private readonly refreshTokens = new Set<string>();
  private readonly codes = new Map<
    string,
    { challenge: string | undefined; redirectUri: string }
  >();
  private readonly cursors = new Map<string, SfRecord[]>();
  /** Per parent query cursor, the child cursors its pages handed out (see `page`). */
  private readonly childCursors = new Map<string, string[]>();
  // Node refuses headers past 16 KiB itself (431): it takes up to a whole SOQL statement
  // percent-encoded, and `handle` answers as the org does.
  private readonly server = createServer(
    { maxHeaderSize: 1024 * 1024 },
    (req, res) => void this.handle(req, res),
  );
  private readonly authorizePages: AuthorizePages;
  private apiUsed = 0;
  readonly pageSize: number;
  readonly childPageSize: number;
  readonly apiMax: number;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly password: string;
  readonly requireSecret: boolean;
  readonly rotateRefreshTokens: boolean;
  /** Metadata component failures to inject: fullName -> error. */
  readonly componentErrors = new Map<string, { statusCode: string; message: string }>();
  /** Bulk API 2.0 jobs, with the knobs for slow and failing ones. */
  readonly bulk: BulkApi;
  /**
   * The owner the active Lead assignment rule gives every Lead created or updated through REST;
   * undefined: no active rule. Bulk API 2.0 jobs run a rule only when named, so never here.
   */
  leadAssignmentOwner: string | undefined;
  /** Whether text longer than its field is refused (`EmulatorOptions.fieldLengths`). */
  fieldLengths: boolean;
  /** Whether the standard duplicate rules are active (`EmulatorOptions.duplicateRules`). */
  duplicateRules: boolean;
  /** Chatter's hourly rate limit, when on (`EmulatorOptions.chatterHourlyLimit`). */
  private readonly chatterLimit: ChatterHourlyLimit | undefined;
  /** Whose API access is off (`EmulatorOptions.apiDisabled`). */
  apiDisabled: ApiDisabled | undefined;
  /** Why the token endpoint refuses every refresh from now on (`refuseRefresh`). */
  private refreshRefusal: RefreshRefusal | undefined;
  /** Which records the org's throwing trigger throws on (`EmulatorOptions.throwingTrigger`). */
  trigger: TriggerPredicate | undefined;
  /** Whether address values are checked (`EmulatorOptions.stateCountryPicklists`). */
  readonly stateCountryPicklists: boolean;
  /** Whether email values are checked (`EmulatorOptions.emailFormat`). */
  emailFormat: boolean;
  /** Whether the Lead validation rule is active (`EmulatorOptions.validationRule`). */
  validationRule: boolean;

  constructor(options: EmulatorOptions = {}) {
    this.org = new Org(options.profile);
    this.org.advance(options.clockOffsetSeconds ?? 0);
    this.pageSize = options.pageSize ?? 2000;
    this.childPageSize = options.childPageSize ?? 200;
    this.apiMax = options.apiMax ?? 15000;
    this.clientId = options.clientId ?? 'emulator-client';
    this.clientSecret = options.clientSecret ?? 'emulator-secret';
    this.password = options.password ?? 'emulator-password';
    this.requireSecret = options.requireSecret ?? true;
    this.rotateRefreshTokens = options.rotateRefreshTokens ?? false;
    this.fieldLengths = options.fieldLengths ?? false;
    this.duplicateRules = options.duplicateRules ?? false;
    const postsPerHour = options.chatterHourlyLimit;
    this.chatterLimit = postsPerHour
      ? new ChatterHourlyLimit(postsPerHour, () => this.org.clock())
      : undefined;
    this.apiDisabled = options.apiDisabled;
    this.trigger = triggerPredicate(options.throwingTrigger);
    this.stateCountryPicklists = options.stateCountryPicklists ?? false;
    if (this.stateCountryPicklists) enableStateCountryPicklists(this.org);
    this.emailFormat = options.emailFormat ?? false;
    this.validationRule = options.validationRule ?? false;
    this.installBehaviours(options);
    this.leadAssignmentOwner =
      options.leadAssignmentRule === false
        ? undefined
        : this.org.insert('User', { FirstName: 'Lead', LastName: 'Queue' });
    this.bulk = new BulkApi(this.org, {
      create: (object, values) => this.create(object, values),
      update: (object, id, values) => this.update(object, id, values),
      chunkError: (object, event, rows) => this.triggerThrows(object, event, rows),
    });
    this.authorizePages = new AuthorizePages({
      clientId: this.clientId,
      appName: 'Service CLI',
      username: () => this.username,
      password: this.password,
      issueCode: (challenge, redirectUri) => this.issueCode(challenge, redirectUri),
    });
    if (options.keepAliveTimeoutMs !== undefined)
      this.server.keepAliveTimeout = options.keepAliveTimeoutMs;
    this.schema =
      options.validateSchema === false ? { missing: 'validation turned off' } : loadSchema();
  }

  /** The org behaviours that add objects or fields: sharing, person accounts, record types. */
  private installBehaviours(options: EmulatorOptions): void {
    installAccessObjects(this.org, options.limitedSharing ?? false);
    if (options.personAccounts) installPersonAccounts(this.org);
    if (options.recordTypes) installRecordTypes(this.org);
    if (this.validationRule) installValidationRule(this.org);
  }

  /** Listens on loopback, on `port` (default 0: a free one the system picks). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Stops listening and closes open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Issue a session directly (what a completed login would give). */
  issueTokens(): { accessToken: string; refreshToken: string; instanceUrl: string } {
    return {
      accessToken: this.newAccessToken(),
      refreshToken: this.newRefreshToken(),
      instanceUrl: this.url,
    };
  }

  /** The org's user, who logs in on the authorize page with `password`. */
  get username(): string {
    return String(this.org.table('User').get(this.org.userId)?.Username ?? '');
  }

  /**
   * What the user does in the browser, over plain HTTP: logs in on the authorize page and
   * allows (or denies) the app. Returns the callback URL the org redirects to.
   */
  approve(authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
    return authorizeOverHttp(
      authorizeUrl,
      { username: this.username, password: this.password },
      decision,
    );
  }

  /** Every access token issued so far stops working (a session timeout). */
  expireSessions(): void {
    this.accessTokens.clear();
  }

  /** Every refresh is refused for `reason` from now on (undefined: refreshes work again). */
  refuseRefresh(reason: RefreshRefusal | undefined): void {
    this.refreshRefusal = reason;
  }

  /** Registers a fault to answer a matching request with (see `FaultSpec`); `verify` checks it was hit. */
  inject(spec: FaultSpec): void {
    this.faults.push({
      kind: spec.kind,
      method: spec.method,
      path: spec.path,
      times: spec.times ?? 1,
      after: spec.after ?? 0,
      seen: 0,
      hits: 0,
    });
  }

  /** Throws when a fault registered for this test was never hit. */
  verify(): void {
    const unhit = this.faults.filter((f) => f.hits === 0);
    this.faults.length = 0;
    if (unhit.length > 0) {
      throw new Error(
        `emulator: registered fault(s) never hit: ${unhit.map((f) => `${f.kind} ${f.method ?? '*'} ${f.path ?? '*'}`).join(', ')}`,
      );
    }
  }

  /** Sets the API requests used today, as `/limits` and `Sforce-Limit-Info` report them. */
  setApiUsed(used: number): void {
    this.apiUsed = used;
  }

  /** How many requests with `method` on a path containing `path` (or matching it) were answered. */
  count(method: string, path: string | RegExp): number {
    return this.requests.filter(
      (r) =>
        r.method === method &&
        (typeof path === 'string' ? r.path.includes(path) : path.test(r.path)),
    ).length;
  }

  // --- internals ---

  private newAccessToken(): string {
    const token = `${this.org.orgId}!AQ${randomBytes(24).toString('base64url')}`;
    this.accessTokens.add(token);
    return token;
  }

  private newRefreshToken(): string {
    const token = `5Aep861${randomBytes(24).toString('base64url')}`;
    this.refreshTokens.add(token);
    return token;
  }

  private takeFault(method: string, path: string): Fault | undefined {
    for (const f of this.faults) {
      if (f.method && f.method !== method) continue;
      if (f.path && !(typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path))) {
        continue;
      }
      if (f.hits >= f.times) continue;
      f.seen += 1;
      if (f.seen <= f.after) continue;
      f.hits += 1;
      return f;
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      body,
      headers: Object.fromEntries(
        Object.entries(req.headers)
          .filter(([name]) => name !== 'authorization')
          .map(([name, value]) => [name, String(value)]),
      ),
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      const isText = typeof payload === 'string';
      res.writeHead(status, {
        'content-type': isText ? 'text/xml; charset=utf-8' : 'application/json;charset=UTF-8',
        // The time the answer was made, on the org's clock (RFC 9110 section 6.6.1).
        // https://www.rfc-editor.org/rfc/rfc9110#section-6.6.1
        date: new Date(this.org.clock()).toUTCString(),
        ...headers,
      });
      res.end(payload === undefined ? undefined : isText ? payload : JSON.stringify(payload));
    };
    if (uriAndHeaderBytes(req) > MAX_URI_AND_HEADERS) {
      // Refused before it reaches the API: a plain-text body, no Salesforce error array.
      return send(414, 'URI Too Long', { 'content-type': 'text/plain;charset=UTF-8' });
    }
    try {
      await this.route({
        method,
        url,
        path: url.pathname,
        req,
        body,
        record,
        fault: this.takeFault(method, url.pathname),
        send,
      });
    } catch (error) {
      send(500, [{ errorCode: 'UNKNOWN_EXCEPTION', message: (error as Error).message }]);
    }
  }

  /**
   * Answers one request: the first family whose table has a route for it, in the order a
   * request meets them at Salesforce (OAuth, the Metadata SOAP API, identity, then the REST API
   * behind its session check and daily limit).
   */
  private async route(call: Call): Promise<void> {
    if (call.fault?.kind === 'closed-connection') {
      call.req.socket.destroy();
      return;
    }
    if (await answer(this.oauthRoutes, call, call.path)) return;
    if (call.fault?.kind === 'expired-session') this.expireSessions();
    if (await answer(this.metadataRoutes, call, call.path)) return;
    if (await answer(this.identityRoutes, call, call.path)) return;
    if (!this.signedIn(call)) return call.send(401, ERRORS.session);
    const data = /^\/services\/data\/v(\d+\.\d)(\/.*)$/.exec(call.path);
    if (!data) return call.send(404, ERRORS.notFound);
    return this.routeData(call, data[2] ?? '');
  }

  private signedIn(call: Call): boolean {
    const bearer = /^Bearer (.+)$/.exec(call.req.headers.authorization ?? '')?.[1];
    return bearer !== undefined && this.accessTokens.has(bearer);
  }

  /** The REST API (`/services/data/vNN.N/...`): counted against the daily limit, then routed. */
  private async routeData(call: Call, rest: string): Promise<void> {
    const { fault: fault_, send } = call;
    if (this.apiDisabled) return send(403, API_DISABLED_ANSWERS[this.apiDisabled]);
    if (this.apiUsed >= this.apiMax || fault_?.kind === 'request-limit') {
      // 403 REQUEST_LIMIT_EXCEEDED, with the usage in Sforce-Limit-Info as on every REST answer.
      // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
      // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm
      return send(403, ERRORS.limit, {
        'sforce-limit-info': `api-usage=${Math.max(this.apiUsed, this.apiMax)}/${this.apiMax}`,
      });
    }
    if (fault_?.kind === 'concurrent-limit') {
      return send(403, ERRORS.concurrent, {
        'sforce-limit-info': `api-usage=${this.apiUsed}/${this.apiMax}`,
      });
    }
    this.apiUsed += 1;
    this.bulk.tick();
    const limitInfo = { 'sforce-limit-info': `api-usage=${this.apiUsed}/${this.apiMax}` };
    const reply = (status: number, payload: unknown) => send(status, payload, limitInfo);
    if (fault_?.kind === 'unavailable') return reply(503, ERRORS.unavailable);
    const body = call.body;
    const restCall: RestCall = {
      ...call,
      reply,
      json: () => (body ? (JSON.parse(body) as Record<string, unknown>) : {}),
    };
    if (await answer(this.restRoutes, restCall, rest)) return;
    const bulk = this.bulk.handle(call.method, rest, call.url.searchParams, body);
    if (bulk) return send(bulk.status, bulk.body, { ...limitInfo, ...bulk.headers });
    return reply(404, ERRORS.notFound);
  }

  /** OAuth 2.0: the authorization and login pages and the token endpoint (no session needed). */
  private readonly oauthRoutes: readonly Route<Call>[] = [
    {
      path: new RegExp(`^(?:${escapeRegExp(AUTHORIZE_PATH)}|${escapeRegExp(LOGIN_PATH)})$`),
      handle: ({ method, url, req, body, send }) => {
        const page = this.authorizePages.handle(method, url, req.headers.cookie, body);
        if (!page) return false;
        send(page.status, page.body, page.headers);
      },
    },
    {
      path: /^\/services\/oauth2\/token$/,
      handle: ({ body, fault, send }) => this.token(body, fault, send),
    },
  ];

  /** The Metadata SOAP API: one endpoint, the operation named in the envelope. */
  private readonly metadataRoutes: readonly Route<Call>[] = [
    {
      path: /^\/services\/Soap\/m\//,
      handle: ({ body, record, fault, send }) => this.metadata(body, record, fault, send),
    },
  ];

  /** The identity URL, OpenID userinfo and the API versions. */
  private readonly identityRoutes: readonly Route<Call>[] = [
    {
      path: /^\/id\//,
      handle: (call) => {
        if (!this.signedIn(call)) return badOAuthToken(call);
        call.send(200, this.identity());
      },
    },
    {
      path: /^\/services\/oauth2\/userinfo$/,
      handle: (call) => {
        if (!this.signedIn(call)) return badOAuthToken(call);
        const { user_id, organization_id, username, display_name, email } = this.identity();
        call.send(200, {
          sub: `${this.url}/id/${organization_id}/${user_id}`,
          user_id,
          organization_id,
          preferred_username: username,
          name: display_name,
          email,
        });
      },
    },
    {
      method: 'GET',
      path: /^\/services\/data\/?$/,
      // Versions: every API version the org serves, no authentication needed.
      // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_versions.htm
      handle: ({ send }) =>
        send(200, [
          { label: "Winter '24", url: '/services/data/v59.0', version: '59.0' },
          { label: "Spring '26", url: '/services/data/v66.0', version: '66.0' },
        ]),
    },
  ];

  /** The REST API's resources, by the path after `/services/data/vNN.N`. */
  private readonly restRoutes: readonly Route<RestCall>[] = [
    {
      method: 'GET',
      path: /^\/limits$/,
      handle: ({ reply }) =>
        reply(200, {
          DailyApiRequests: { Max: this.apiMax, Remaining: this.apiMax - this.apiUsed },
        }),
    },
    {
      method: 'GET',
      path: /^\/query\/?$/,
      handle: ({ reply, url }) => reply(...this.query(url.searchParams.get('q') ?? '', false)),
    },
    {
      // QueryAll: the same query, records in the Recycle Bin included (IsDeleted true); its
      // further pages come from the same /query/<locator> URLs.
      // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_queryall.htm
      method: 'GET',
      path: /^\/queryAll\/?$/,
      handle: ({ reply, url }) =>
        reply(...this.query(url.searchParams.get('q') ?? '', false, true)),
    },
    {
      method: 'GET',
      path: /^\/tooling\/query\/?$/,
      handle: ({ reply, url }) => {
        this.org.refreshDefinitions();
        reply(...this.query(url.searchParams.get('q') ?? '', true));
      },
    },
    {
      method: 'GET',
      path: /^(\/tooling)?\/query\/([\w-]+)$/,
      handle: ({ reply }, [, tooling, locator = '']) => reply(...this.page(locator, !!tooling)),
    },
    { method: 'GET', path: /^\/sobjects$/, handle: ({ reply }) => reply(200, this.sobjects()) },
    {
      method: 'GET',
      path: /^\/sobjects\/(\w+)\/describe\/?$/,
      handle: ({ reply }, [, object = '']) => {
        if (!this.org.fields.has(object) || this.org.unreadableObjects.has(object)) {
          return reply(404, [
            { errorCode: 'NOT_FOUND', message: `The requested resource does not exist` },
          ]);
        }
        reply(200, {
          name: object,
          label: object,
          fields: this.org.describe(object),
          ...recordTypeInfos(this.org, object),
        });
      },
    },
    {
      method: 'PATCH',
      path: /^\/composite\/sobjects\/?$/,
      handle: ({ reply, json, fault, req }) =>
        reply(...this.composite(json(), fault?.kind === 'lock', assigns(req))),
    },
    {
      method: 'POST',
      path: /^\/chatter\/feed-elements$/,
      handle: ({ reply, json }) => reply(...this.feedElement(json())),
    },
    {
      method: 'GET',
      path: /^\/chatter\/feeds\/record\/(\w+)\/feed-elements$/,
      handle: ({ reply }, match) => reply(...this.recordFeed(match[1] ?? '')),
    },
    {
      method: 'POST',
      path: /^\/sobjects\/(\w+)\/?$/,
      handle: ({ reply, json, req }, [, object = '']) =>
        reply(...this.create(object, json(), assigns(req), allowsSave(req))),
    },
    {
      // A record by id, with the fields the user can read.
      // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_get_field_values.htm
      method: 'GET',
      path: /^\/sobjects\/(\w+)\/(\w+)$/,
      handle: ({ reply }, [, object = '', id = '']) => {
        const found = this.org.table(object).get(id);
        // A record sharing hides is not found: 404 ("verify that there are no sharing issues").
        // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
        if (
          !found ||
          this.org.unreadableObjects.has(object) ||
          hiddenBySharing(this.org, object, found)
        )
          return reply(404, ERRORS.notFound);
        const readable = Object.entries(found).filter(
          ([name]) => name === 'Id' || this.org.access(object, name) !== 'none',
        );
        reply(200, { attributes: attributes(object, id), ...Object.fromEntries(readable) });
      },
    },
    {
      method: 'PATCH',
      path: /^\/sobjects\/(\w+)\/(\w+)$/,
      handle: ({ reply, json, fault, req }, [, object = '', id = '']) => {
        if (fault?.kind === 'lock') return reply(400, [this.lockError(id)]);
        const result = this.update(object, id, json(), assigns(req));
        if (!result) return reply(204, undefined);
        const { statusCode, message, fields } = result;
        reply(400, [{ message, errorCode: statusCode, ...(fields.length > 0 ? { fields } : {}) }]);
      },
    },
  ];

  /** Describe Global: the objects the user can see. */
  private sobjects() {
    return {
      encoding: 'UTF-8',
      maxBatchSize: 200,
      sobjects: [...this.org.records.keys()]
        .filter((name) => !this.org.unreadableObjects.has(name))
        .map((name) => ({
          name,
          label: name,
          queryable: true,
          createable: WRITABLE.has(name),
          updateable: WRITABLE.has(name),
          deletable: WRITABLE.has(name),
        })),
    };
  }

  private issueCode(challenge: string | undefined, redirectUri: string): string {
    const code = `aPrx${randomBytes(16).toString('base64url')}`;
    this.codes.set(code, { challenge, redirectUri });
    return code;
  }

  private token(
    body: string,
    fault_: Fault | undefined,
    send: (status: number, payload: unknown) => void,
  ) {
    const params = new URLSearchParams(body);
    const error = (status: number, code: string, description: string) =>
      send(status, { error: code, error_description: description });
    if (params.get('client_id') !== this.clientId) {
      return error(400, 'invalid_client_id', 'client identifier invalid');
    }
    // Both flows require the consumer secret unless the connected app waives it.
    // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
    const secret = params.get('client_secret');
    if ((this.requireSecret || secret !== null) && secret !== this.clientSecret) {
      return error(400, 'invalid_client', 'invalid client credentials');
    }
    if (fault_?.kind === 'refresh-in-progress') {
      return error(400, 'invalid_grant', 'token request is already being processed');
    }
    if (fault_?.kind === 'unavailable') return send(503, ERRORS.unavailable);
    const grant = params.get('grant_type');
    const base = {
      instance_url: this.url,
      id: `${this.url}/id/${this.org.orgId}/${this.org.userId}`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
      signature: randomBytes(32).toString('base64'),
    };
    if (grant === 'authorization_code') {
      const code = this.codes.get(params.get('code') ?? '');
      this.codes.delete(params.get('code') ?? '');
      if (!code || code.redirectUri !== params.get('redirect_uri')) {
        return error(400, 'invalid_grant', 'authentication failure');
      }
      // PKCE: a code issued for a code_challenge is exchanged only with the code_verifier whose
      // SHA-256 (base64url) is that challenge.
      // https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_pkce.htm
      // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
      if (code.challenge !== undefined) {
        const verifier = params.get('code_verifier') ?? '';
        const expected = createHash('sha256').update(verifier).digest('base64url');
        if (expected !== code.challenge) {
          return error(400, 'invalid_grant', 'invalid code verifier');
        }
      }
      return send(200, {
        ...base,
        access_token: this.newAccessToken(),
        refresh_token: this.newRefreshToken(),
        scope: 'api sfap_api id refresh_token full openid',
        id_token: 'eyJraWQiOiIyNDIiLCJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.e30.c2ln',
      });
    }
    if (grant === 'refresh_token') {
      if (this.refreshRefusal) return send(400, REFRESH_REFUSALS[this.refreshRefusal]);
      const used = params.get('refresh_token') ?? '';
      if (!this.refreshTokens.has(used)) {
        return error(400, 'invalid_grant', 'expired access/refresh token');
      }
      // With rotation on, the answer carries a new refresh token and the one used is revoked.
      // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm
      if (this.rotateRefreshTokens) this.refreshTokens.delete(used);
      return send(200, {
        ...base,
        access_token: this.newAccessToken(),
        ...(this.rotateRefreshTokens ? { refresh_token: this.newRefreshToken() } : {}),
        scope: 'api sfap_api id refresh_token full openid',
      });
    }
    return error(400, 'unsupported_grant_type', 'grant type not supported');
  }

  private identity() {
    const user = this.org.table('User').get(this.org.userId);
    return {
      id: `${this.url}/id/${this.org.orgId}/${this.org.userId}`,
      asserted_user: true,
      user_id: this.org.userId,
      organization_id: this.org.orgId,
      username: user?.Username,
      display_name: user?.Name,
      email: user?.Email,
      active: true,
      user_type: 'STANDARD',
      urls: {
        rest: `${this.url}/services/data/v{version}/`,
        metadata: `${this.url}/services/Soap/m/{version}/${this.org.orgId.slice(0, 15)}`,
        query: `${this.url}/services/data/v{version}/query/`,
      },
    };
  }

  private query(soql: string, tooling: boolean, all = false): [number, unknown] {
    let rows: SfRecord[];
    try {
      rows = runSoql(this.org, soql, tooling, all);
    } catch (error) {
      if (error instanceof SoqlError) {
        return [400, [{ message: error.message, errorCode: error.errorCode }]];
      }
      throw error;
    }
    if (isCountQuery(soql)) return [200, { totalSize: rows.length, done: true, records: [] }];
    const records = tooling
      ? rows.map((r) => ({
          ...r,
          attributes: attributes(
            (r.attributes as { type: string }).type,
            r.Id,
            '/services/data/v59.0/tooling/sobjects',
          ),
        }))
      : rows;
    return this.pageOf(
      records,
      records.length,
      `01gRO${randomBytes(6).toString('hex')}`,
      0,
      tooling,
    );
  }

  /**
   * One page of at most `pageSize` records; the rest wait behind `nextRecordsUrl`. Tooling
   * queries page the same way, under `/tooling/query/`, and carry `size` and `entityTypeName`.
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_query.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_tooling.meta/api_tooling/intro_rest_resources.htm
   */
  private pageOf(
    rows: SfRecord[],
    total: number,
    cursor: string,
    offset: number,
    tooling: boolean,
  ): [number, unknown] {
    const records = rows.slice(0, this.pageSize);
    const remaining = rows.slice(this.pageSize);
    const next = offset + records.length;
    for (const record of records) this.pageChildren(record, cursor);
    const body: Record<string, unknown> = {
      ...(tooling
        ? {
            size: total,
            queryLocator: null,
            entityTypeName: records[0] ? (records[0].attributes as { type: string }).type : null,
          }
        : {}),
      totalSize: total,
      done: remaining.length === 0,
      records,
    };
    if (remaining.length > 0) {
      this.cursors.set(`${cursor}-${next}`, remaining);
      body.nextRecordsUrl = `/services/data/v59.0${tooling ? '/tooling' : ''}/query/${cursor}-${next}`;
      if (tooling) body.queryLocator = `${cursor}-${next}`;
    }
    return [200, body];
  }

  /**
   * A subquery's children beyond `childPageSize` wait behind a child cursor of their own,
   * handed out with the parent page `cursor` is on.
   * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships_query_results.htm
   */
  private pageChildren(record: SfRecord, cursor: string): void {
    for (const [name, value] of Object.entries(record)) {
      const children = value as { records?: SfRecord[]; done?: boolean } | null;
      if (!children || !Array.isArray(children.records) || children.done !== true) continue;
      if (children.records.length <= this.childPageSize) continue;
      const child = `01gRO${randomBytes(6).toString('hex')}`;
      this.cursors.set(
        `${child}-${this.childPageSize}`,
        children.records.slice(this.childPageSize),
      );
      this.childCursors.set(cursor, [...(this.childCursors.get(cursor) ?? []), child]);
      record[name] = {
        ...children,
        done: false,
        nextRecordsUrl: `/services/data/v59.0/query/${child}-${this.childPageSize}`,
        records: children.records.slice(0, this.childPageSize),
      };
    }
  }

  private page(locator: string, tooling: boolean): [number, unknown] {
    const rows = this.cursors.get(locator);
    if (!rows) {
      return [400, [{ message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' }]];
    }
    this.cursors.delete(locator);
    const [cursor = '', offset = '0'] = locator.split(/-(?=\d+$)/);
    // "A queryMore() call on a parent object invalidates all child cursors in the previous
    // result set": their next pages answer INVALID_QUERY_LOCATOR from now on.
    // https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_querymore_queryresult.htm
    const children = new Set(this.childCursors.get(cursor));
    for (const key of this.cursors.keys())
      if (children.has(key.replace(/-\d+$/, ''))) this.cursors.delete(key);
    this.childCursors.delete(cursor);
    return this.pageOf(rows, Number(offset) + rows.length, cursor, Number(offset), tooling);
  }

  /**
   * Field-level security on a write. A field the user cannot see is refused as if it did not
   * exist: INVALID_FIELD naming it in the message only (no `fields`). A field the user can read
   * but not edit: INVALID_FIELD_FOR_INSERT_UPDATE, with `fields`.
   * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
   */
  private checkFields(object: string, values: Record<string, unknown>, current?: SfRecord) {
    const names = Object.keys(values).filter((n) => n !== 'attributes' && n !== 'id' && n !== 'Id');
    const unknown = names.find((name) => this.org.access(object, name) === 'none');
    if (unknown) {
      return {
        statusCode: 'INVALID_FIELD',
        message: `No such column '${unknown}' on sobject of type ${object}`,
        fields: [] as string[],
      };
    }
    const readOnly = names.filter((name) => this.org.access(object, name) === 'read');
    if (readOnly.length > 0) {
      return {
        statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
        message: `Unable to create/update fields: ${readOnly.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
        fields: readOnly,
      };
    }
    return (
      restrictedRefusal(this.org, object, values) ??
      (this.stateCountryPicklists ? addressRefusal(object, values, current) : undefined) ??
      (this.emailFormat ? invalidEmail(this.org, object, values) : undefined) ??
      (this.fieldLengths ? tooLong(this.org, object, values) : undefined)
    );
  }

  /** An active Lead assignment rule gives the Lead its owner (see `assigns`). */
  private assign(object: string, record: SfRecord | undefined, autoAssign: boolean): void {
    if (object !== 'Lead' || !autoAssign || !record || this.leadAssignmentOwner === undefined)
      return;
    record.OwnerId = this.leadAssignmentOwner;
  }

  private create(
    object: string,
    values: Record<string, unknown>,
    autoAssign = false,
    allowSave = false, // Bulk API 2.0 has no duplicate rule header: its rows never allow
  ): [number, unknown] {
    if (!WRITABLE.has(object)) {
      return [404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]];
    }
    const invalid =
      this.checkFields(object, values) ?? this.triggerThrows(object, 'BeforeInsert', [values]);
    if (invalid) {
      const { statusCode, fields, message } = invalid;
      return [400, [{ message, errorCode: statusCode, ...(fields.length > 0 ? { fields } : {}) }]];
    }
    const missing = this.org.requiredMissing(object, values);
    if (missing.length > 0) {
      return [
        400,
        [
          {
            message: `Required fields are missing: [${missing.join(', ')}]`,
            errorCode: 'REQUIRED_FIELD_MISSING',
            fields: missing,
          },
        ],
      ];
    }
    if (object === 'PermissionSetAssignment') {
      // One assignment per user and permission set: a second is refused as a duplicate.
      // https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
      const twin = [...this.org.table(object).values()].find(
        (a) => a.AssigneeId === values.AssigneeId && a.PermissionSetId === values.PermissionSetId,
      );
      if (twin) {
        return [
          400,
          [
            {
              message: `duplicate value found: <unknown> duplicates value on record with id: ${twin.Id}`,
              errorCode: 'DUPLICATE_VALUE',
            },
          ],
        ];
      }
    }
    // Validation rules run before duplicate rules, as in Salesforce's order of execution.
    // https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/apex_triggers_order_of_execution.htm
    const typed = withRecordType(this.org, object, values);
    const refused = 'error' in typed ? typed.error : this.validates(object, values);
    if (refused) {
      const { statusCode, message, fields } = refused;
      return [400, [{ message, errorCode: statusCode, fields }]];
    }
    const duplicate = this.duplicateRules && !allowSave && duplicatesOf(this.org, object, values);
    if (duplicate) return [400, [duplicate]];
    const id = this.org.insert(object, 'values' in typed ? typed.values : values);
    const created = this.org.table(object).get(id);
    if (created) this.org.derive(object, created);
    this.assign(object, created, autoAssign);
    return [201, { id, success: true, errors: [] }];
  }

  /** The active validation rule's error on a create, if it fails. */
  private validates(object: string, values: Record<string, unknown>) {
    return this.validationRule ? failsValidation(object, values) : undefined;
  }

  /** Applies an update; returns the per-record error, if any. */
  private update(object: string, id: string, values: Record<string, unknown>, autoAssign = false) {
    const record = this.org.table(object).get(id);
    if (this.org.purged.has(id)) {
      // A record purged from the Recycle Bin is still known to be deleted.
      // https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
      return {
        statusCode: 'ENTITY_IS_DELETED',
        message: 'entity is deleted',
        fields: [] as string[],
      };
    }
    if (!record || this.org.objectOfId(id) !== object) {
      return {
        statusCode: 'INVALID_CROSS_REFERENCE_KEY',
        message: 'invalid cross reference id',
        fields: [] as string[],
      };
    }
    if (record.IsDeleted === true) {
      // https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
      return {
        statusCode: 'ENTITY_IS_DELETED',
        message: 'entity is deleted',
        fields: [] as string[],
      };
    }
    if (hiddenBySharing(this.org, object, record)) return insufficientAccess(id);
    const injected = this.org.recordErrors.get(id);
    if (injected) return { ...injected, fields: [] as string[] };
    if (object === 'Lead' && record.IsConverted === true) {
      return {
        statusCode: 'CANNOT_UPDATE_CONVERTED_LEAD',
        message: 'cannot reference converted lead',
        fields: [] as string[],
      };
    }
    const invalid =
      this.checkFields(object, values, record) ??
      this.triggerThrows(object, 'BeforeUpdate', [{ ...record, ...values }]);
    if (invalid) return invalid;
    const { attributes: _a, id: _i, ...fields } = values;
    this.org.change(object, record, fields);
    this.assign(object, record, autoAssign);
    return undefined;
  }

  /** The throwing trigger's error for records it runs on together (stored values under new). */
  private triggerThrows(
    object: string,
    event: 'BeforeInsert' | 'BeforeUpdate',
    records: readonly Record<string, unknown>[],
  ) {
    if (!this.trigger) return undefined;
    const seen = records.map((r) => ({
      ...this.org.table(object).get(String(r.id ?? r.Id)),
      ...r,
    }));
    return triggerError(this.trigger, object, event, seen);
  }

  private lockError(id: string) {
    return {
      statusCode: 'UNABLE_TO_LOCK_ROW',
      errorCode: 'UNABLE_TO_LOCK_ROW',
      message: `unable to obtain exclusive access to this record or 1 records: ${id}`,
      fields: [] as string[],
    };
  }

  private composite(
    body: Record<string, unknown>,
    lock: boolean,
    autoAssign: boolean,
  ): [number, unknown] {
    const records = Array.isArray(body.records) ? (body.records as Record<string, unknown>[]) : [];
    if (records.length > 200) {
      return [
        400,
        [
          {
            message:
              'EXCEEDED_ID_LIMIT: record limit reached. cannot submit more than 200 records into this call',
            errorCode: 'EXCEEDED_ID_LIMIT',
          },
        ],
      ];
    }
    // Records of more than one type are processed in chunks, a chunk being a run of consecutive
    // records of one type, and one request processes at most 10: more are refused whole (400,
    // "If the request isn't well formed"). The page documents the limit, not an error code: the
    // code is the emulator's choice, the message the one Salesforce gives.
    // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_update.htm
    if (chunksOf(records) > MAX_CHUNKS) {
      return [
        400,
        [
          {
            message:
              'Cannot have more than 10 chunks in a single operation. Please rearrange the data to reduce chunking.',
            errorCode: 'INVALID_BATCH_REQUEST',
          },
        ],
      ];
    }
    if (body.allOrNone === true) {
      return [
        400,
        [{ message: 'the emulator serves allOrNone: false only', errorCode: 'INVALID_INPUT' }],
      ];
    }
    const typeOf = (r: Record<string, unknown>) =>
      (r.attributes as { type?: string } | undefined)?.type ?? '';
    // The records of one type are one chunk: a trigger throwing fails all of them.
    const thrown = new Map(
      [...new Set(records.map(typeOf))].map((type) => [
        type,
        this.triggerThrows(
          type,
          'BeforeUpdate',
          records.filter((r) => typeOf(r) === type),
        ),
      ]),
    );
    return [
      200,
      records.map((r, index) => {
        const id = String(r.id ?? '');
        const type = typeOf(r);
        if (lock && index === 0) {
          const { errorCode: _e, ...error } = this.lockError(id);
          return { id, success: false, errors: [error] };
        }
        const error = thrown.get(type) ?? this.update(type, id, r, autoAssign);
        return error ? { id, success: false, errors: [error] } : { id, success: true, errors: [] };
      }),
    ];
  }

  private feedElement(body: Record<string, unknown>): [number, unknown] {
    const subjectId = String(body.subjectId ?? '');
    if (!this.org.objectOfId(subjectId)) {
      return [404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]];
    }
    if (this.chatterLimit?.admit() === false) return [503, CHATTER_LIMIT_ANSWER];
    const segments = segmentsOf(body);
    const { body: text, isRichText } = feedItemBody(segments);
    const id = this.org.postToFeed(subjectId, text, isRichText);
    const item = { Id: id, ...body };
    this.org.feed.push(item as SfRecord);
    return [201, { id, feedElementType: 'FeedItem', type: 'TextPost', parent: { id: subjectId } }];
  }

  /**
   * A record's feed, newest first: the posts made on it, each with its text and the message
   * segments it was posted with (paragraph markup included).
   * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/connect_resources_feeds_record.htm
   * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/connect_responses_feed_item_body.htm
   */
  private recordFeed(recordId: string): [number, unknown] {
    if (!this.org.objectOfId(recordId)) return [404, ERRORS.notFound];
    const elements = this.org.feed
      .filter((item) => item.subjectId === recordId)
      .reverse()
      .map((item) => {
        const messageSegments = segmentsOf(item);
        return {
          id: item.Id,
          feedElementType: 'FeedItem',
          type: 'TextPost',
          parent: { id: recordId },
          body: {
            text: feedText(messageSegments),
            isRichText: feedItemBody(messageSegments).isRichText,
            messageSegments,
          },
        };
      });
    return [200, { elements, nextPageUrl: null, currentPageUrl: null }];
  }

  private async metadata(
    body: string,
    record: RecordedRequest,
    fault_: Fault | undefined,
    send: (status: number, payload: unknown) => void,
  ) {
    if (!('missing' in this.schema)) {
      const errors = await schemaErrors(this.schema, body);
      if (errors.length > 0) {
        this.schemaErrors.push(...errors);
        return send(500, fault('soapenv:Client', errors.join('; ')));
      }
    }
    if (fault_?.kind === 'unavailable') return send(503, 'Service Unavailable');
    const outcome = handleMetadata(this.org, body, {
      componentErrors: this.componentErrors,
      sessionFault: (sessionId) =>
        sessionId && this.accessTokens.has(sessionId)
          ? undefined
          : fault(
              'INVALID_SESSION_ID',
              'INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session',
            ),
    });
    record.soap = { operation: outcome.operation, components: outcome.components };
    send(outcome.status, outcome.body);
  }
}

/** The message segments of a Feed Item Input. */
const segmentsOf = (input: Record<string, unknown>): MessageSegment[] =>
  (input.body as { messageSegments?: MessageSegment[] } | undefined)?.messageSegments ?? [];

/** Starts an emulated org on loopback (`options.port`, default a free one). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return new Emulator(options).start(options.port);
}
