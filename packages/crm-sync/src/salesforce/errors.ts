/**
 * Errors of the Salesforce entry. One base class with a `code` to branch on; subclasses for
 * the cases a caller handles differently (auth, API limit, permissions). Messages never carry
 * access or refresh tokens.
 */

export type SalesforceErrorCode =
  /** The token endpoint refused a grant (`error` / `error_description` in `details`). */
  | 'auth_failed'
  /** The session could not be refreshed (no refresh token, or it expired or was revoked). */
  | 'session_expired'
  /** A refresh refused: the user's Login IP Ranges do not include this machine's address. */
  | 'ip_restricted'
  /** A refresh refused: outside the user's Login Hours. */
  | 'login_hours'
  /** A refresh refused: the connected app is not approved (or is blocked) for the user. */
  | 'app_not_approved'
  /** A refresh refused: the user is deactivated (or frozen). */
  | 'user_inactive'
  /** The org's API is off: `API_DISABLED_FOR_ORG` (the org) or `API_CURRENTLY_DISABLED` (the user). */
  | 'api_disabled'
  /** Chatter answered 503: its per-user hourly rate limit (the feed posts left wait for a later run). */
  | 'chatter_limit'
  /** An org's API request limit is reached (`REQUEST_LIMIT_EXCEEDED`, see `ApiLimit`). */
  | 'api_limit'
  /** The connecting user lacks permissions (see `SalesforcePermissionError`). */
  | 'insufficient_permissions'
  /** A REST call failed: `status`, Salesforce's `errorCode` and the parsed body are attached. */
  | 'request_failed'
  /** A Metadata SOAP call failed with a fault. */
  | 'soap_fault'
  /** The org could not be reached (network error) after the retries. */
  | 'network'
  /** The caller passed options that cannot work. */
  | 'invalid_options';

/** What a `SalesforceError` carries beside its code and message. */
export interface SalesforceErrorDetails {
  /** HTTP status, when the error comes from a response. */
  readonly status?: number;
  /** Salesforce's `errorCode` (REST), `error` (OAuth) or fault code (SOAP). */
  readonly errorCode?: string;
  /** Field names Salesforce attached to the error. */
  readonly fields?: readonly string[];
  /** `METHOD path` of the request, without the query string's values. */
  readonly request?: string;
  /** The parsed error body (REST errors array, OAuth error object, SOAP fault text). */
  readonly body?: unknown;
}

/** A call to Salesforce failed; `code` says how. Its message never contains a token. */
export class SalesforceError extends Error {
  override name = 'SalesforceError';
  readonly code: SalesforceErrorCode;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly fields: readonly string[];
  readonly request: string | undefined;
  readonly body: unknown;

  constructor(
    code: SalesforceErrorCode,
    message: string,
    details: SalesforceErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(redact(message), options);
    this.code = code;
    this.status = details.status;
    this.errorCode = details.errorCode;
    this.fields = details.fields ?? [];
    this.request = details.request;
    this.body = details.body;
  }
}

/**
 * Which limit `REQUEST_LIMIT_EXCEEDED` means: `daily`, the requests of a rolling 24 hours;
 * `concurrent`, too many long-running requests (20 seconds or more) at once in the org.
 * https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html
 */
export type ApiLimit = 'daily' | 'concurrent';

/**
 * An org's API request limit stops the work (the concurrent one after the connection's retries);
 * `usage` is what the org last reported.
 */
export class SalesforceApiLimitError extends SalesforceError {
  override name = 'SalesforceApiLimitError';
  readonly usage: ApiUsage | undefined;
  readonly limit: ApiLimit;
  constructor(
    message: string,
    usage: ApiUsage | undefined,
    details: SalesforceErrorDetails = {},
    limit: ApiLimit = 'daily',
  ) {
    super('api_limit', message, details);
    this.usage = usage;
    this.limit = limit;
  }
}

/** Permissions the connecting user lacks, with the remedy in plain words. */
export class SalesforcePermissionError extends SalesforceError {
  override name = 'SalesforcePermissionError';
  readonly missing: readonly string[];
  readonly remedy: string;
  constructor(missing: readonly string[], remedy: string) {
    super('insufficient_permissions', `Missing permission(s): ${missing.join(', ')}. ${remedy}`);
    this.missing = missing;
    this.remedy = remedy;
  }
}

/** The org's API requests used and allowed in its rolling 24-hour window. */
export interface ApiUsage {
  /** API requests used in the org's rolling 24-hour window. */
  readonly used: number;
  /** The org's daily allocation. */
  readonly max: number;
}

// Access tokens look like `00D...!AQ...`, refresh tokens `5Aep...`; bearer values anywhere.
const SECRET_PATTERNS = [
  /00D[a-zA-Z0-9]{12,15}![\w.-]+/g,
  /5Aep[\w.-]{20,}/g,
  /Bearer\s+[\w.!-]+/gi,
  /<sessionId>[^<]*<\/sessionId>/g,
];

/** Removes anything that looks like a Salesforce token from a text. */
export function redact(text: string): string {
  return SECRET_PATTERNS.reduce((out, pattern) => out.replace(pattern, '[redacted]'), text);
}
