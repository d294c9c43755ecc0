/**
 * Where tokens may be sent: a Salesforce login host or instance over https, or plain http to
 * this machine only (tests, emulators). A bearer token or a client secret sent over plain http
 * to any other host can be read on the way, so such a URL is refused before anything is sent.
 */
import { SalesforceError } from '../errors.js';

/** This machine: `localhost`, 127.0.0.0/8 and ::1, as the URL parser normalizes them. */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * `value` as given, when it is an https URL, or http to loopback; else a clear error, `what`
 * naming the URL (`Instance URL`, `Login host`).
 */
export function requireSecureUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SalesforceError('invalid_options', `${what} is not a URL`);
  }
  const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) {
    throw new SalesforceError(
      'invalid_options',
      `${what} ${url.protocol}//${url.host} must use https:// (plain http:// is accepted for this machine only): a token sent over plain http can be read on the way`,
    );
  }
  return value;
}
