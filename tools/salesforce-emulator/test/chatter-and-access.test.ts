// Chatter's hourly limit and rich-text posts, refused refreshes and an org with its API off, as
// Salesforce documents them (chatter-limit.ts, feed-body.ts, refresh-refusals.ts, api-disabled.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { presetOptions } from '../src/presets.ts';
import { seedOrg } from '../src/seed.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from '../src/server.ts';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function org(options: EmulatorOptions) {
  emulator = await startEmulator({ validateSchema: false, ...options });
  const tokens = emulator.issueTokens();
  const api = `${emulator.url}/services/data/v59.0`;
  const headers = {
    authorization: `Bearer ${tokens.accessToken}`,
    'content-type': 'application/json',
  };
  return { emulator, tokens, api, headers };
}

const paragraphs = (...lines: string[]) =>
  lines.flatMap((text) => [
    { type: 'MarkupBegin', markupType: 'Paragraph' },
    { type: 'Text', text },
    { type: 'MarkupEnd', markupType: 'Paragraph' },
  ]);

describe('Chatter', () => {
  it('answers 503 past the hourly limit of posts, and takes posts again an hour later', async () => {
    const { emulator, api, headers } = await org({ chatterHourlyLimit: 3 });
    const [account] = seedOrg(emulator.org, { companies: 1 }).accounts;
    const post = () =>
      fetch(`${api}/chatter/feed-elements`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          feedElementType: 'FeedItem',
          subjectId: account,
          body: { messageSegments: [{ type: 'Text', text: 'x' }] },
        }),
      });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post()).status);
    expect(statuses).toEqual([201, 201, 201, 503, 503]);
    expect(emulator.org.feed).toHaveLength(3);
    emulator.org.advance(3600);
    expect((await post()).status).toBe(201);
  });

  it('is on at 50 posts an hour in the customer preset, off in the developer one', () => {
    expect(presetOptions('customer').chatterHourlyLimit).toBe(50);
    expect(presetOptions('developer').chatterHourlyLimit).toBe(false);
  });

  it('keeps paragraph segments: the FeedItem Body is HTML, the record feed shows the segments', async () => {
    const { emulator, api, headers } = await org({});
    const [account] = seedOrg(emulator.org, { companies: 1 }).accounts;
    const messageSegments = paragraphs('Sessions: 2', 'a < b & c');
    const posted = await fetch(`${api}/chatter/feed-elements`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        feedElementType: 'FeedItem',
        subjectId: account,
        body: { messageSegments },
      }),
    });
    expect(posted.status).toBe(201);
    const soql = `SELECT Body, IsRichText FROM FeedItem WHERE ParentId IN ('${account}')`;
    const query = await (
      await fetch(`${api}/query?q=${encodeURIComponent(soql)}`, { headers })
    ).json();
    expect(query.records).toMatchObject([
      { Body: '<p>Sessions: 2</p><p>a &lt; b &amp; c</p>', IsRichText: true },
    ]);
    const feed = await (
      await fetch(`${api}/chatter/feeds/record/${account}/feed-elements`, { headers })
    ).json();
    expect(feed.elements[0].body).toEqual({
      text: 'Sessions: 2\na < b & c',
      isRichText: true,
      messageSegments,
    });
  });
});

describe('access refused', () => {
  it.each([
    ['ip-restricted', 'invalid_grant', 'ip restricted'],
    ['login-hours', 'invalid_grant', 'login hours'],
    ['app-not-approved', 'invalid_app_access', 'user is not admin approved to access this app'],
    ['inactive-user', 'inactive_user', 'user is inactive'],
    ['expired-token', 'invalid_grant', 'expired access/refresh token'],
    ['authentication-failure', 'invalid_grant', 'authentication failure'],
  ] as const)('refuses a refresh for %s with %s "%s"', async (reason, error, description) => {
    const { emulator, tokens } = await org({});
    emulator.refuseRefresh(reason);
    const answer = await fetch(`${emulator.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken,
        client_id: emulator.clientId,
        client_secret: emulator.clientSecret,
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error, error_description: description });
  });

  it.each([
    ['org', 'API_DISABLED_FOR_ORG'],
    ['user', 'API_CURRENTLY_DISABLED'],
  ] as const)(
    'answers every REST call 403 %s when the API is off for the %s',
    async (whose, code) => {
      const { api, headers } = await org({ apiDisabled: whose });
      const answer = await fetch(`${api}/limits`, { headers });
      expect(answer.status).toBe(403);
      expect((await answer.json())[0].errorCode).toBe(code);
    },
  );
});
