/**
 * How a failed command reports: one line with the remedy on stderr, or with `--json` the object
 * `{"error":{"code","message"}}` on stdout, so a script reads one JSON document either way. The
 * exit code is the same in both.
 */
import { SalesforceError, SalesforcePermissionError } from '../salesforce/errors.js';
import { CliError, EXIT, type ExitCode, type Io } from './output.js';

interface Failure {
  readonly exitCode: ExitCode;
  /** Stable for scripts: the exit code's name, or the SalesforceError code. */
  readonly code: string;
  readonly message: string;
}

const EXIT_NAMES = Object.fromEntries(
  Object.entries(EXIT).map(([name, code]) => [
    code,
    name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  ]),
) as Record<ExitCode, string>;

function describe(error: unknown): Failure {
  const failure = (exitCode: ExitCode, message: string, code = EXIT_NAMES[exitCode]) => ({
    exitCode,
    code,
    message,
  });
  if (error instanceof CliError) return failure(error.exitCode, error.message, error.code);
  if (error instanceof SalesforcePermissionError)
    return failure(EXIT.permissions, error.message, error.code);
  if (error instanceof SalesforceError) {
    switch (error.code) {
      case 'auth_failed':
      case 'session_expired':
        return failure(
          EXIT.auth,
          `${error.message}${error.message.includes('Log in again') ? '' : ' Run `service-crm login` again.'}`,
          error.code,
        );
      case 'api_limit':
        return failure(EXIT.apiLimit, error.message, error.code);
      // The message names the setting and who changes it (salesforce/auth/refusals.ts,
      // connection/failures.ts).
      case 'ip_restricted':
      case 'login_hours':
      case 'app_not_approved':
      case 'user_inactive':
      case 'api_disabled':
        return failure(EXIT.orgPolicy, error.message, error.code);
      case 'invalid_options':
        return failure(EXIT.usage, error.message, error.code);
      case 'network':
        return failure(
          EXIT.internal,
          `${error.message}. Check --instance-url and your network, then retry.`,
          error.code,
        );
      default:
        return failure(EXIT.internal, error.message, error.code);
    }
  }
  // A full disk: the message already names the file and the disk (salesforce/state/private-file.ts).
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return failure(EXIT.internal, firstLine(error), 'disk_full');
  return failure(EXIT.internal, `unexpected error: ${firstLine(error)}`);
}

/**
 * The first line that says something: an AggregateError (what a refused connection gives) or a
 * plain Error may carry an empty message, so its causes and then its name are read instead.
 */
function firstLine(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return String(error);
  const own = error.message.split('\n')[0];
  if (own !== '' || depth > 3) return own || error.name;
  const inner = error instanceof AggregateError ? error.errors[0] : error.cause;
  return inner === undefined ? error.name : `${error.name}: ${firstLine(inner, depth + 1)}`;
}

/** Reports `error` on `io` and returns the exit code the command ends with. */
export function reportError(error: unknown, io: Io, json: boolean): ExitCode {
  const { exitCode, code, message } = describe(error);
  if (json) io.out(JSON.stringify({ error: { code, message } }));
  else io.err(`service-crm: ${message}`);
  return exitCode;
}
