// The lookup requests whose answers lookup-core must give alike on every server it is mounted in:
// each is sent to the server under test and to `service-lookup serve` (node:http through
// toNodeListener), and the two answers must agree in status, body and the headers a caller reads.
// The full behaviour tables run in lookup-core's vitest suites; these rows sample each kind of
// answer (200 by domain and by email, with activity, 400, 401 per key transport, 404, 405, 413).

const LOOKUP = '/api/service/lookup';
const COMPARED_HEADERS = [
  'content-type',
  'www-authenticate',
  'allow',
  'retry-after',
  'cache-control',
];

/** `[name, { method, headers, body }, status]`; `KEY` in a header or body is the server's key. */
export const REQUESTS = [
  ['domain', { bearer: true, body: { domain: 'acme.com' } }, 200],
  [
    'email, with activity',
    { bearer: true, body: { email: 'ann.lee@acme.com', includeActivity: true } },
    200,
  ],
  ['a URL as the domain', { bearer: true, body: { domain: 'https://www.acme.com/pricing' } }, 200],
  [
    'key in x-service-secret-key',
    { headers: { 'x-service-secret-key': 'KEY' }, body: { domain: 'acme.com' } },
    200,
  ],
  ['key in the body', { body: { domain: 'acme.com', secretKey: 'KEY' } }, 200],
  ['unknown domain', { bearer: true, body: { domain: 'unknown.example' } }, 404],
  ['no email or domain', { bearer: true, body: {} }, 400],
  ['a body that is not JSON', { bearer: true, body: '{"domain":' }, 400],
  ['no key', { body: { domain: 'acme.com' } }, 401],
  [
    'a wrong key',
    {
      headers: { authorization: 'Bearer sk_live_wrong_0000000000000000000000' },
      body: { domain: 'acme.com' },
    },
    401,
  ],
  ['GET', { bearer: true, method: 'GET' }, 405],
  [
    'a body over 16 KiB',
    { bearer: true, body: { domain: 'acme.com', pad: 'x'.repeat(17_000) } },
    413,
  ],
];

function init({ bearer, method = 'POST', headers = {}, body }, key) {
  const withKey = (value) => value.replaceAll('KEY', key);
  const sent = typeof body === 'string' || body === undefined ? body : JSON.stringify(body);
  return {
    method,
    headers: {
      ...(sent === undefined ? {} : { 'content-type': 'application/json' }),
      ...(bearer ? { authorization: `Bearer ${key}` } : {}),
      ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, withKey(value)])),
    },
    body: sent === undefined ? undefined : withKey(sent),
  };
}

async function answer(baseUrl, request, key) {
  const response = await fetch(new URL(LOOKUP, baseUrl), init(request, key));
  const headers = Object.fromEntries(
    COMPARED_HEADERS.map((name) => [name, response.headers.get(name)]),
  );
  return { status: response.status, headers, body: await response.text() };
}

/** One result per request: `ok` when the server under test answered as the reference did, with the status expected. */
export async function compareAnswers(baseUrl, referenceUrl, key) {
  const results = [];
  for (const [name, request, status] of REQUESTS) {
    const [got, want] = await Promise.all([
      answer(baseUrl, request, key),
      answer(referenceUrl, request, key),
    ]);
    const same = JSON.stringify(got) === JSON.stringify(want);
    results.push({
      check: `${name} -> ${status}`,
      ok: same && got.status === status,
      detail: same
        ? `${got.status}`
        : `answered ${JSON.stringify(got)}, node:http ${JSON.stringify(want)}`,
    });
  }
  return results;
}
