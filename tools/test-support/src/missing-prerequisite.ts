/**
 * Options for a suite or test that needs something outside the repository: a PostgreSQL server,
 * or Salesforce's schema in `../shared`. When it is there the tests run; when it is missing they
 * are collected as skipped, carrying the reason, which scripts/skip-reporter.ts counts and prints.
 * That reporter fails the run unless ALLOW_MISSING_PREREQUISITES=1 (and always under CI=true).
 */
import type { TestOptions } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test did not run: what it needs and is not on this machine. */
    missingPrerequisite?: string;
  }
}

/** `describe(name, requires(missing), fn)`: skipped with the reason when `missing` is set. */
export function requires(missing: string | undefined): TestOptions {
  return missing === undefined ? {} : { skip: true, meta: { missingPrerequisite: missing } };
}
