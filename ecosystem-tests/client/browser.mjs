// A page in Chromium: the refusal of a secret key in a browser, what `dangerouslyAllowBrowser`
// does against a server that sends no CORS headers, and the checks through servers that do.
import * as lib from '@service/lookup-client';
import { runChecks } from './check.mjs';

async function browserChecks({ withoutCors, withCors }) {
  const results = [];
  try {
    new lib.LookupClient({ baseUrl: withoutCors.baseUrl, secretKey: withoutCors.key });
    results.push({ check: 'secret key refused', ok: false, detail: 'constructed in a page' });
  } catch (error) {
    const refused =
      error instanceof lib.ConfigurationError && !error.message.includes(withoutCors.key);
    results.push({
      check: 'secret key refused',
      ok: refused,
      detail: `${error.name}: ${error.message}`,
    });
  }
  const allowed = new lib.LookupClient({
    baseUrl: withoutCors.baseUrl,
    secretKey: withoutCors.key,
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
  });
  try {
    await allowed.lookup({ domain: 'acme.com' });
    results.push({ check: 'no CORS headers: blocked', ok: false, detail: 'answered' });
  } catch (error) {
    results.push({
      check: 'no CORS headers: blocked',
      ok: error instanceof lib.ConnectionError,
      detail: `${error.name} ${error.code}: ${error.message}`,
    });
  }
  const through = await runChecks(lib, withCors, { dangerouslyAllowBrowser: true });
  return [...results, ...through.map((r) => ({ ...r, check: `with CORS: ${r.check}` }))];
}

globalThis.browserChecks = browserChecks;
