import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requires } from '@service/test-support';
import { CHROMIUM, ensureChromium } from '@service/test-support/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReference, type ReferenceBuild, referenceDir } from '../scripts/build-reference.ts';
import { packagesWithUnfinishedReference } from './pending.ts';

const landing = pathToFileURL(join(referenceDir, 'index.html')).href;
const root = pathToFileURL(`${referenceDir}/`).href;
const pathOf = (url: string) => fileURLToPath(url.split('#')[0] as string);

let build: ReferenceBuild;
let browser: Browser;
let pagesInFlight = 0;

// Debian's Chromium, installed when missing as .ci/run does; playwright-core downloads nothing.
const missingChromium = await ensureChromium();

beforeAll(async () => {
  build = await buildReference();
});

describe('the API reference', () => {
  it('builds with every export documented and no other warning', () => {
    if (build.pending.length > 0)
      console.log(
        `${build.pending.length} warnings in packages not finished yet (${packagesWithUnfinishedReference.join(', ')}):\n  ${build.pending.join('\n  ')}`,
      );
    expect(build.failures, 'TypeDoc warnings, e.g. exports without a doc comment').toEqual([]);
    expect(build.exitCode).toBe(0);
  });
});

describe('the API reference in a browser', requires(missingChromium), () => {
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('has no broken internal link, from the docs index through every page it reaches', async () => {
    expect(existsSync(join(referenceDir, 'index.html'))).toBe(true);
    const idsOf = new Map<string, Set<string>>();
    const linksFrom = new Map<string, string[]>();
    const queue = [landing];
    const visit = async (page: Page, url: string) => {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      const { ids, hrefs } = await page.evaluate(() => ({
        ids: [...document.querySelectorAll('[id], a[name]')].map(
          (e) => e.id || e.getAttribute('name') || '',
        ),
        hrefs: [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href),
      }));
      idsOf.set(url, new Set(ids));
      const internal = hrefs.filter((href) => href.startsWith(root));
      linksFrom.set(url, internal);
      for (const href of internal) {
        const target = href.split('#')[0] as string;
        if (target.endsWith('.html') && !queued.has(target) && existsSync(pathOf(target))) {
          queued.add(target);
          queue.push(target);
        }
      }
    };
    const queued = new Set(queue);
    // The links and anchors are in the pages' HTML, so scripts stay off; a few tabs at once, as
    // the reference has hundreds of pages.
    const context = await browser.newContext({ javaScriptEnabled: false });
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const page = await context.newPage();
        while (queue.length > 0 || pagesInFlight > 0) {
          const url = queue.shift();
          if (!url) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            continue;
          }
          pagesInFlight++;
          await visit(page, url).finally(() => pagesInFlight--);
        }
        await page.close();
      }),
    );
    await context.close();
    const broken: string[] = [];
    for (const [from, hrefs] of linksFrom) {
      for (const href of hrefs) {
        const [target, fragment] = href.split('#') as [string, string | undefined];
        const ids = idsOf.get(target);
        if (!existsSync(pathOf(target)) || (fragment && !ids?.has(decodeURIComponent(fragment))))
          broken.push(`${from.slice(root.length)} -> ${href.slice(root.length)}`);
      }
    }
    expect(broken).toEqual([]);
    expect(idsOf.size).toBeGreaterThan(50);
  }, 600_000);

  it('saves a screenshot of its landing page to docs/api/landing.png', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(landing);
    await page.screenshot({ path: join(referenceDir, 'landing.png') });
    await page.close();
    expect(existsSync(join(referenceDir, 'landing.png'))).toBe(true);
  });
});
