// The client bundled for a page and run in headless Chromium (the system's, driven by
// playwright-core, which downloads no browser). The page is served from its own loopback origin,
// so every call it makes is cross-origin, as from a real site.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { bundle, loadTool } from './load-tool.mjs';
import { CHROMIUM } from './tools.mjs';

export async function runInChromium(project, servers) {
  const script = await bundle(join(project, 'browser.mjs'), {
    format: 'iife',
    platform: 'browser',
  });
  const page = createServer((req, res) => {
    if (req.url === '/app.js')
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><script src="/app.js"></script>');
  });
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
  // A CommonJS package: its exports come as the default export.
  const { chromium } = (await loadTool('playwright-core')).default;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${page.address().port}/`);
    const results = await tab.evaluate((arg) => globalThis.browserChecks(arg), servers);
    return { results, version: browser.version() };
  } finally {
    await browser.close();
    page.close();
  }
}
