/** Motions as data: checking them, and whether one's conditions hold for a person. */

import type { ContactAggregate } from '@service/lookup-contract';
import { PURCHASE_INTENTS } from '@service/lookup-contract';
import { CrmSyncError } from '../model/errors.js';
import { type PipelineStageResult, pipelineStages } from './pipeline-stage.js';
import { type Motion, motionActions } from './types.js';

const LISTS = ['personas', 'icps', 'signals'] as const;

function listProblems(at: string, value: unknown, allowed?: readonly string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    return [`${at} must be a list of strings`];
  const unknown = allowed ? value.filter((v) => !allowed.includes(v)) : [];
  return unknown.map((v) => `${at}: ${JSON.stringify(v)} is not one of ${allowed?.join(', ')}`);
}

function motionProblems(motion: Motion, at: string): string[] {
  if (typeof motion !== 'object' || motion === null) return [`${at}: expected an object`];
  const { name, conditions, actions } = motion;
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '') problems.push(`${at}.name is empty`);
  if (!Array.isArray(actions)) problems.push(`${at}.actions must be a list`);
  else problems.push(...listProblems(`${at}.actions`, actions, motionActions));
  if (typeof conditions !== 'object' || conditions === null)
    return [...problems, `${at}.conditions must be an object`];
  problems.push(
    ...listProblems(`${at}.conditions.pipelineStages`, conditions.pipelineStages, pipelineStages),
  );
  problems.push(
    ...listProblems(`${at}.conditions.purchaseIntent`, conditions.purchaseIntent, PURCHASE_INTENTS),
  );
  for (const list of LISTS)
    problems.push(...listProblems(`${at}.conditions.${list}`, conditions[list]));
  const { minSessions } = conditions;
  if (minSessions !== undefined && !(Number.isInteger(minSessions) && minSessions >= 0)) {
    problems.push(
      `${at}.conditions.minSessions must be a whole number of sessions, got ${JSON.stringify(minSessions)}`,
    );
  }
  return problems;
}

/** Throws one `CrmSyncError` (`invalid_input`) listing every problem of `motions`. */
export function checkMotions(motions: readonly Motion[]): void {
  const problems: string[] = [];
  const names = new Set<string>();
  motions.forEach((motion, i) => {
    problems.push(...motionProblems(motion, `motions[${i}]`));
    if (names.has(motion?.name))
      problems.push(`motions[${i}].name ${JSON.stringify(motion.name)} is used twice`);
    names.add(motion?.name);
  });
  if (problems.length > 0) throw new CrmSyncError('invalid_input', 'Invalid motions', problems);
}

function anyOf(wanted: readonly string[] | undefined, have: readonly string[]): boolean {
  return wanted === undefined || wanted.some((w) => have.includes(w));
}

/** What a motion is evaluated on: the person, their company's stage and ICPs, their personas. */
interface MotionContext {
  readonly contact: ContactAggregate;
  readonly stage: PipelineStageResult | null;
  readonly personas: readonly string[];
  readonly icps: readonly string[];
}

/** Whether all of `motion`'s conditions hold (within a list, any value matches). */
export function motionMatches(
  motion: Motion,
  { contact, stage, personas, icps }: MotionContext,
): boolean {
  const c = motion.conditions;
  return (
    (c.pipelineStages === undefined ||
      (stage !== null && c.pipelineStages.includes(stage.stage))) &&
    (c.purchaseIntent === undefined ||
      (contact.purchaseIntent !== null && c.purchaseIntent.includes(contact.purchaseIntent))) &&
    anyOf(c.personas, personas) &&
    anyOf(c.icps, icps) &&
    anyOf(c.signals, contact.signals) &&
    (c.minSessions === undefined || contact.sessions >= c.minSessions)
  );
}
