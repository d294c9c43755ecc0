/** `--request-timeout SECONDS` (or `requestTimeoutSeconds` in the config): how long a call waits. */
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../salesforce/connection/connection.js';
import { setProcessRequestTimeout } from '../salesforce/connection/jsforce.js';
import { CliError, EXIT } from './output.js';

/**
 * The request timeout in ms: the flag, else the config's, else a minute. Set for every jsforce
 * call of the process too (the Metadata and Bulk APIs), so no call waits longer.
 */
export function requestTimeout(flag: string | undefined, configured: number | undefined): number {
  const seconds = flag === undefined ? configured : Number(flag);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) {
    throw new CliError(EXIT.usage, `--request-timeout ${flag} is not a number of seconds above 0`);
  }
  const ms = seconds === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : Math.round(seconds * 1000);
  setProcessRequestTimeout(ms);
  return ms;
}
