/** What went wrong, as a value a caller can branch on. */
export type CrmSyncErrorCode =
  | 'invalid_mapping'
  | 'invalid_record'
  | 'invalid_input'
  | 'invalid_aggregate'
  | 'invalid_response'
  | 'query_too_long';

/**
 * The one error class of the pure core. Every function of the root entry throws only this (save
 * `chunk`'s `RangeError` for a bad size), with a `code` to branch on and a message that names the
 * offending input.
 */
export class CrmSyncError extends Error {
  override readonly name = 'CrmSyncError';
  readonly code: CrmSyncErrorCode;
  /** One line per problem, when several were found at once (e.g. every bad mapping). */
  readonly issues: readonly string[];

  constructor(code: CrmSyncErrorCode, message: string, issues: readonly string[] = []) {
    super(issues.length > 0 ? `${message}:\n- ${issues.join('\n- ')}` : message);
    this.code = code;
    this.issues = issues;
  }
}
