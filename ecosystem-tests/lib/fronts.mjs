// Loopback servers put in front of `service-lookup serve` for the checks a healthy server cannot
// give: one that answers 503 once, one that never answers, and (for the page in Chromium) the CORS
// headers a browser needs, which lookup-core does not send.
import { createServer } from 'node:http';

/** What a server must send for a page on another origin to call the lookup (see lookup-client's README). */
export const CORS_HEADERS = {
  'access-control-allow-methods': 'POST',
  // x-service-secret-key: the key transport the client tries when a bearer key is refused.
  'access-control-allow-headers':
    'authorization, content-type, x-service-client, x-service-secret-key',
  'access-control-expose-headers': 'x-request-id, retry-after',
  'access-control-max-age': '600',
};

const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
]);

/**
 * Starts a server on loopback. `fault`: `'503-once'` answers 503 to the first request under each
 * path prefix (one per runtime, `/<row>/api/...`) and forwards the rest to `target` without the
 * prefix; `'stall'` never answers; none forwards everything. `cors` adds the CORS headers.
 */
export async function startFront({ target, fault, cors = false }) {
  const failedOnce = new Set();
  const stalled = new Set();
  const server = createServer(async (req, res) => {
    if (cors) {
      res.setHeader('access-control-allow-origin', req.headers.origin ?? '*');
      res.setHeader('vary', 'origin');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS).end();
        return;
      }
      res.setHeader('access-control-expose-headers', CORS_HEADERS['access-control-expose-headers']);
    }
    if (fault === 'stall') {
      stalled.add(res);
      return;
    }
    const [, prefix, rest] = /^(\/[^/]+)(\/api\/.*)$/.exec(req.url) ?? [null, '', req.url];
    if (fault === '503-once' && !failedOnce.has(prefix)) {
      failedOnce.add(prefix);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'temporarily unavailable' }));
      return;
    }
    try {
      const headers = Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name));
      const body = req.method === 'GET' ? undefined : await readBody(req);
      const answer = await fetch(new URL(fault ? rest : req.url, target), {
        method: req.method,
        headers,
        body,
      });
      const kept = [...answer.headers].filter(
        ([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding',
      );
      res.writeHead(answer.status, Object.fromEntries(kept));
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}
