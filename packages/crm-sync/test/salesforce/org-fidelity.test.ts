// Issue 12, findings 1-5 and 7: what a real org answers where our emulator used to be kinder.
// Each test failed against the library before its fix.

import { seedOrg, startEmulator } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { customFields } from '../../src/index.js';
import {
  applyPlan,
  connect,
  memoryJournal,
  planFieldSetup,
  preflight,
  type RefreshedSession,
  SalesforceError,
  setUpFields,
} from '../../src/salesforce.js';
import { connectTo, FAST_RETRY, useEmulator } from './helpers.js';
import { leadCreate, plan, update } from './plan-steps.js';

const env = useEmulator();

describe('expired session on field setup', () => {
  it('refreshes when userinfo answers 403 Bad_OAuth_Token, and the preflight completes', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.expireSessions();
    const check = await preflight(connection);
    expect(check.identity.userId).toBe(emulator.org.userId);
    expect(connection.stats.refreshes).toBe(1);
    const userinfo = emulator.requests.filter((r) => r.path === '/services/oauth2/userinfo');
    expect(userinfo.map((r) => r.status)).toEqual([403, 200]);
  });
});

describe('a failed profile grant', () => {
  it('fails every grant when the profile SaveResult says success=false, even if no error names a field', async () => {
    const { emulator } = env;
    const fields = customFields.filter((f) => f.object === 'Contact').slice(0, 2);
    emulator.componentErrors.set('Admin', {
      statusCode: 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY',
      message: 'insufficient access rights on cross-reference id',
    });
    try {
      const result = await setUpFields(connectTo(emulator), { fields });
      expect(result.ok).toBe(false);
      expect(result.fields.every((f) => f.ok)).toBe(true);
      expect(result.grants.map((g) => [g.fullName, g.ok, g.errors[0]?.statusCode])).toEqual(
        fields.map((f) => [f.fullName, false, 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY']),
      );
    } finally {
      emulator.componentErrors.clear();
    }
  });
});

describe('rotated refresh tokens', () => {
  it('keeps the new refresh token (and hands it to onRefresh), so the next refresh works', async () => {
    const emulator = await startEmulator({ rotateRefreshTokens: true });
    try {
      const tokens = emulator.issueTokens();
      const sessions: RefreshedSession[] = [];
      const options = {
        ...tokens,
        clientId: emulator.clientId,
        clientSecret: emulator.clientSecret,
        loginUrl: emulator.url,
        retry: FAST_RETRY,
      };
      const connection = connect({ ...options, onRefresh: (s) => void sessions.push(s) });
      emulator.expireSessions();
      await connection.limits();
      const rotated = sessions[0]?.refreshToken;
      expect(rotated).toMatch(/^5Aep/);
      expect(rotated).not.toBe(tokens.refreshToken);
      expect(connection.refreshToken).toBe(rotated);
      emulator.expireSessions();
      await connection.limits();
      expect(connection.stats.refreshes).toBe(2);
      expect(sessions).toHaveLength(2);
      // The token the run started with was revoked by the first rotation.
      const stale = connect(options);
      emulator.expireSessions();
      const error = await stale.limits().catch((e) => e);
      expect(error).toBeInstanceOf(SalesforceError);
      expect(error.code).toBe('session_expired');
    } finally {
      await emulator.close();
    }
  });
});

describe('writes retried without the refused fields', () => {
  it('creates without a field the org answers INVALID_FIELD for (no fields array, named in the message)', async () => {
    const { emulator } = env;
    emulator.org.hidden.add('Lead.MobilePhone');
    try {
      const result = await applyPlan(
        connectTo(emulator),
        plan([leadCreate('hidden@acme.io', { MobilePhone: '+1 555 0100', Title: 'CTO' })]),
      );
      expect(result.outcomes.map((o) => (o.status === 'written' ? o.omitted : o.status))).toEqual([
        ['MobilePhone'],
      ]);
      const refusal = emulator.requests.find(
        (r) => r.path.endsWith('/sobjects/Lead') && r.status === 400,
      );
      expect(refusal).toBeDefined();
    } finally {
      emulator.org.hidden.clear();
    }
  });

  it('creates and updates without a read-only field (INVALID_FIELD_FOR_INSERT_UPDATE), using describe', async () => {
    const { emulator } = env;
    const [a = '', b = ''] = seedOrg(emulator.org, { companies: 2 }).accounts;
    emulator.org.readOnly.add('Lead.Title');
    emulator.org.readOnly.add('Account.Website');
    try {
      const result = await applyPlan(
        connectTo(emulator),
        plan([
          update(a, { Name: 'Renamed A', Website: 'https://a.example' }),
          update(b, { Name: 'Renamed B' }),
          leadCreate('readonly@acme.io', { Title: 'CTO' }),
        ]),
      );
      expect(
        result.outcomes.map((o) => [o.status, o.status === 'written' ? (o.omitted ?? []) : []]),
      ).toEqual([
        ['written', ['Website']],
        ['written', []],
        ['written', ['Title']],
      ]);
      expect(emulator.org.table('Account').get(a)?.Name).toBe('Renamed A');
      const lead = [...emulator.org.table('Lead').values()].find(
        (l) => l.Email === 'readonly@acme.io',
      );
      expect(lead?.Title).toBeUndefined();
    } finally {
      emulator.org.readOnly.clear();
    }
  });
});

describe('field existence from the Tooling API', () => {
  it('plans no upsert for a field that exists but that field-level security hides from describe', async () => {
    const { emulator } = env;
    const fields = customFields.filter((f) => f.object === 'Account').slice(0, 2);
    const connection = connectTo(emulator);
    expect((await setUpFields(connection, { fields })).ok).toBe(true);
    const [hidden] = fields;
    emulator.org.hidden.add(hidden?.fullName ?? '');
    try {
      const described = emulator.org.describe('Account').map((f) => f.name);
      expect(described).not.toContain(hidden?.apiName);
      const fieldPlan = await planFieldSetup(connection, { fields });
      expect(fieldPlan.upserts).toEqual([]);
    } finally {
      emulator.org.hidden.clear();
    }
  });
});

describe('REQUEST_LIMIT_EXCEEDED', () => {
  it('stops the run at once (one attempt, no retry), and the next run resumes from the journal', async () => {
    const { emulator } = env;
    const accounts = seedOrg(emulator.org, { companies: 3 }).accounts;
    const steps = accounts.map((id, i) => update(id, { Name: `Limited ${i}` }));
    const journal = memoryJournal();
    const connection = connectTo(emulator);
    const composite = () => emulator.count('PATCH', '/composite/sobjects');
    const before = composite();
    emulator.inject({ kind: 'request-limit', path: '/composite/sobjects' });
    const first = await applyPlan(connection, plan(steps), { journal });
    expect(first.stopped?.reason).toBe('api-limit');
    expect(first.counts.pending).toBe(3);
    expect(composite() - before).toBe(1);
    expect(connection.stats.retries).toBe(0);
    const second = await applyPlan(connection, plan(steps), { journal });
    expect(second.counts.written).toBe(3);
    expect(composite() - before).toBe(2);
  });
});
