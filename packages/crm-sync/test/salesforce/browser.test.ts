// How `service-crm login` opens the browser: BROWSER first (the URL in place of %s, or last),
// else the platform's opener; a missing opener is reported, not thrown past the caller.
// The callback page shows Salesforce's words as text, never as markup.
import { describe, expect, it } from 'vitest';
import { openBrowser, opener } from '../../src/cli/browser.js';
import { callbackPage } from '../../src/cli/callback-page.js';

const url = 'https://login.salesforce.com/services/oauth2/authorize?client_id=a&state=b';

describe('opener', () => {
  it('uses BROWSER, with the URL in place of %s or as the last argument', () => {
    expect(opener(url, { BROWSER: 'firefox --new-tab' }, 'linux')).toEqual({
      command: 'firefox',
      args: ['--new-tab', url],
    });
    expect(opener(url, { BROWSER: 'node hand.mjs %s --quiet' }, 'darwin')).toEqual({
      command: 'node',
      args: ['hand.mjs', url, '--quiet'],
    });
  });

  it('uses the platform opener otherwise', () => {
    expect(opener(url, {}, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(opener(url, {}, 'darwin')).toEqual({ command: 'open', args: [url] });
    const windows = opener(url, {}, 'win32');
    expect(windows.command).toBe('cmd');
    // `&` would end the command in cmd: it is escaped, the URL stays whole.
    expect(windows.args).toEqual(['/c', 'start', '""', url.replace('&', '^&')]);
  });

  it('rejects with the reason when the opener does not exist', async () => {
    await expect(openBrowser(url, { BROWSER: '/nonexistent/browser' }, 'linux')).rejects.toThrow(
      '/nonexistent/browser: not found',
    );
  });

  it('reports an opener that starts but fails', async () => {
    const failure = new Promise<string>((resolve) => {
      void openBrowser(url, { BROWSER: 'false' }, 'linux', resolve);
    });
    expect(await failure).toBe('false exited with code 1');
  });
});

describe('callbackPage', () => {
  it('says what happened, with Salesforce error text escaped', () => {
    const page = callbackPage({ kind: 'error', message: 'bad <script>alert(1)</script>' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('bad &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.html).not.toContain('<script>');
    expect(callbackPage({ kind: 'refused' }).html).toContain('You chose Deny');
  });
});
