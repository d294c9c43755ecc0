// Issue 37 finding 10: past Chatter's hourly limit (503 from Connect REST, per user and app per
// hour) the posts left are pending, not failed, and the next run posts them, each once; a
// timeline's lines are sent as paragraph segments, not as line breaks inside one text segment.
import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/output.js';
import { exitCodeOf } from '../../src/cli/sync-report.js';
import type { PlanStep } from '../../src/index.js';
import { applyPlan, memoryJournal } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { plan } from './plan-steps.js';

const env = useEmulator({ chatterHourlyLimit: 3 });

const post = (accountId: string, n: number): PlanStep => ({
  type: 'feedPost',
  target: { object: 'Account', id: accountId },
  text: `Sessions: /pricing\nSignals: visit ${n}`,
  motion: 'Existing customer',
  idempotencyKey: `timeline:${accountId}:${n}`,
  subject: { kind: 'company', domain: `${accountId}.com` },
  reason: 'motion posts a timeline',
});

describe('feed posts past Chatter hourly limit', () => {
  it('leaves the current and remaining posts pending (exit 4), and the next run posts each once', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 5 });
    const steps = accounts.map((id, n) => post(id, n));
    const journal = memoryJournal();
    const connection = connectTo(emulator);

    const first = await applyPlan(connection, plan(steps), { journal });
    expect(first.counts).toMatchObject({ written: 3, failed: 0, pending: 2 });
    expect(first.outcomes.map((o) => o.status)).toEqual([
      'written',
      'written',
      'written',
      'pending',
      'pending',
    ]);
    expect(first.stopped?.reason).toBe('chatter-hourly-limit');
    expect(first.stopped?.message).toMatch(
      /^2 timeline posts left for the next run: Chatter's hourly limit/,
    );
    expect(exitCodeOf(first)).toBe(EXIT.partial);
    expect(emulator.org.feed).toHaveLength(3);

    emulator.org.advance(3600); // the next hour
    const next = await applyPlan(connection, plan(steps), { journal });
    expect(next.counts).toMatchObject({ written: 2, 'already-done': 3, failed: 0, pending: 0 });
    expect(exitCodeOf(next)).toBe(EXIT.ok);
    // One post on each of the five records, none twice.
    expect(emulator.org.feed.map((item) => item.subjectId).sort()).toEqual([...accounts].sort());
  });

  it('sends each line as a paragraph, and a later run finds the rich-text post by its reference', async () => {
    const { emulator } = env;
    emulator.org.advance(3600);
    const [account = ''] = seedOrg(emulator.org, { companies: 1 }).accounts;
    const connection = connectTo(emulator);
    const step = post(account, 7);
    const written = await applyPlan(connection, plan([step]));
    expect(written.counts.written).toBe(1);

    const { body } = await connection.rest<{
      elements: { body: { messageSegments: unknown[] } }[];
    }>('GET', `/chatter/feeds/record/${account}/feed-elements`);
    const paragraph = (text: string) => [
      { type: 'MarkupBegin', markupType: 'Paragraph' },
      { type: 'Text', text },
      { type: 'MarkupEnd', markupType: 'Paragraph' },
    ];
    const [reference] = (body.elements[0]?.body.messageSegments ?? [])
      .map((s) => (s as { text?: string }).text ?? '')
      .filter((text) => text.startsWith('Service ref: '));
    expect(body.elements[0]?.body.messageSegments).toEqual([
      ...paragraph('Sessions: /pricing'),
      ...paragraph('Signals: visit 7'),
      ...paragraph(reference ?? 'a reference'),
    ]);

    // Without a journal the post is found in the org (its Body is HTML now), not made again.
    const again = await applyPlan(connection, plan([step]));
    expect(again.outcomes.map((o) => o.status)).toEqual(['already-done']);
    expect(emulator.org.feed.filter((item) => item.subjectId === account)).toHaveLength(1);
  });
});
