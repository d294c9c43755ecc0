/**
 * A vitest reporter that makes skipped tests visible. Tests that need something outside the
 * repository (a PostgreSQL server, Salesforce's schema in ../shared) are skipped with the reason
 * when it is missing (`requires` of @service/test-support); this reporter prints how many skipped and
 * why, and fails the run unless ALLOW_MISSING_PREREQUISITES=1 says the machine is known to lack
 * them. Under CI=true nothing may be missing: the opt-out is ignored there. Tests skipped for
 * another reason (`.skip`, `.todo`, a name filter, `.only` elsewhere) are counted, not failed.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** The variable that lets a run pass with tests skipped for a missing prerequisite. */
export const OPT_OUT = 'ALLOW_MISSING_PREREQUISITES';

export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const byReason = new Map<string, number>();
    let otherSkips = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const reason = test.meta().missingPrerequisite;
        if (reason === undefined) otherSkips++;
        else byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      }
    }
    const missing = [...byReason.values()].reduce((sum, n) => sum + n, 0);
    const others =
      otherSkips > 0 ? `; ${otherSkips} skipped otherwise (.skip, .todo, a filter)` : '';
    if (missing === 0) {
      console.log(`skipped tests: none for a missing prerequisite${others}`);
      return;
    }
    const reasons = [...byReason].map(([reason, n]) => `  ${n} skipped: ${reason}`).join('\n');
    const ci = process.env.CI === 'true';
    if (!ci && process.env[OPT_OUT] === '1') {
      console.log(
        `skipped tests: ${missing} for a missing prerequisite (allowed by ${OPT_OUT}=1)${others}\n${reasons}`,
      );
      return;
    }
    process.exitCode = 1;
    console.error(
      `\nskipped tests: FAILED, ${missing} did not run for a missing prerequisite${others}\n${reasons}\n` +
        (ci
          ? '  Under CI=true every test must run.'
          : `  Provide what is missing, or set ${OPT_OUT}=1 to accept the skips on this machine.`),
    );
  }
}
