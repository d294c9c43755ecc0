// Shared set-up for the Salesforce tests: one emulator per test file, a connection to it,
// and the suite-wide checks (every injected fault was hit; no DELETE request ever).

import { type Emulator, type EmulatorOptions, startEmulator } from '@service/salesforce-emulator';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  type ConnectionOptions,
  connect,
  type SalesforceConnection,
} from '../../src/salesforce.js';

/** Fast retries: the behaviour is what is tested, not the delays. */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 } as const;

/** The connected app of `emulator`, as the OAuth flows take it. */
export const clientOf = (emulator: Emulator) => ({
  clientId: emulator.clientId,
  clientSecret: emulator.clientSecret,
  loginUrl: emulator.url,
});

/** The SF_* environment that connects to `emulator` with `tokens` and can refresh them. */
export function sfEnvironment(
  emulator: Emulator,
  tokens: { instanceUrl: string; accessToken: string; refreshToken: string },
): Record<string, string> {
  return {
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
    SF_REFRESH_TOKEN: tokens.refreshToken,
    SF_CLIENT_ID: emulator.clientId,
    SF_CLIENT_SECRET: emulator.clientSecret,
    SF_LOGIN_URL: emulator.url,
  };
}

export function useEmulator(options: EmulatorOptions = {}): { readonly emulator: Emulator } {
  const holder = {} as { emulator: Emulator };
  beforeAll(async () => {
    holder.emulator = await startEmulator(options);
    const missing = 'missing' in holder.emulator.schema ? holder.emulator.schema.missing : null;
    if (missing) console.warn(`Metadata envelopes not schema-validated: ${missing}`);
  });
  afterEach(() => holder.emulator.verify());
  afterAll(async () => {
    expect(holder.emulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    // Nor a Bulk API 2.0 job that deletes.
    expect(holder.emulator.bulk.operations().filter((op) => /delete/i.test(op))).toEqual([]);
    expect(holder.emulator.schemaErrors).toEqual([]);
    await holder.emulator.close();
  });
  return holder;
}

export function connectTo(
  emulator: Emulator,
  extra: Pick<ConnectionOptions, 'onRefresh'> = {},
): SalesforceConnection {
  const tokens = emulator.issueTokens();
  return connect({
    instanceUrl: tokens.instanceUrl,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    loginUrl: emulator.url,
    retry: FAST_RETRY,
    ...extra,
  });
}
