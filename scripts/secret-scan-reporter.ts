/**
 * A vitest reporter that fails the whole test run when a secret shows up where people read:
 * the console output of any test, or the message/stack of any error a test, a test file or the
 * run reports. Secrets are lookup keys (`sk_live_` + 24 or more characters) and Salesforce
 * access and refresh tokens (the shapes the org, and the crm-sync emulator, issue). Only the two
 * public sample keys of samples/README.md may appear. A finding is printed redacted.
 */
import type { UserConsoleLog } from 'vitest';
import type { Reporter, SerializedError, TestCase, TestModule, Vitest } from 'vitest/node';

const SECRET_SHAPES = [
  /sk_live_[\x21-\x7e]{24,}/g, // lookup secret key
  /\b00D\w{12,15}!AQ[\w.-]{16,}/g, // Salesforce access token (org id ! session)
  /\b5Aep861[\w.-]{16,}/g, // Salesforce refresh token
];
const PUBLIC_SAMPLE_KEYS = [
  'sk_live_sample_default_000000000000000000',
  'sk_live_sample_northwind_0000000000000000',
];

/** The secrets in a text, other than the public sample keys. */
function findSecrets(text: string): string[] {
  return SECRET_SHAPES.flatMap((shape) => [...text.matchAll(shape)].map((m) => m[0])).filter(
    (found) => !PUBLIC_SAMPLE_KEYS.some((sample) => found.startsWith(sample)),
  );
}

const redact = (secret: string) => `${secret.slice(0, 10)}... (${secret.length} characters)`;

export default class SecretScanReporter implements Reporter {
  private readonly findings: string[] = [];
  private scanned = 0;
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest) {
    this.vitest = vitest;
  }

  private scan(text: string | undefined, where: string) {
    if (!text) return;
    this.scanned++;
    for (const secret of findSecrets(text)) this.findings.push(`${redact(secret)} in ${where}`);
  }

  private scanError(error: SerializedError | undefined, where: string) {
    for (let e = error; e; e = e.cause as SerializedError | undefined) {
      // Assertion messages are truncated: the compared values are scanned too.
      for (const field of ['message', 'stack', 'actual', 'expected', 'diff'] as const) {
        const text = e[field];
        if (typeof text === 'string') this.scan(text, `an error ${field} of ${where}`);
      }
    }
  }

  onUserConsoleLog(log: UserConsoleLog) {
    // A log's taskId is an opaque id: name the test (or file) it came from instead.
    const source = log.taskId && this.vitest?.state.getReportedEntityById(log.taskId);
    const where = !source
      ? 'a test file'
      : source.type === 'module'
        ? source.moduleId
        : source.fullName;
    this.scan(log.content, `console ${log.type} of ${where}`);
  }

  onTestCaseResult(testCase: TestCase) {
    for (const error of testCase.result().errors ?? []) this.scanError(error, testCase.fullName);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ) {
    for (const module of testModules)
      for (const error of module.errors()) this.scanError(error, module.moduleId);
    for (const error of unhandledErrors) this.scanError(error, 'the run (unhandled)');
    if (this.findings.length === 0) {
      console.log(
        `secret scan: ${this.scanned} console outputs and errors scanned, no secret found`,
      );
      return;
    }
    process.exitCode = 1;
    console.error(
      `\nsecret scan: FAILED, ${this.findings.length} secret(s) in test output or errors:\n  ${this.findings.join('\n  ')}`,
    );
  }
}
