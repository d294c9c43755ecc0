import { fileURLToPath } from 'node:url';
import type { ServerCommand } from '@service/test-support';
import { describe, expect, it } from 'vitest';
import { type LookupSample, lookupChecks } from './lookup-checks.ts';
import { SAMPLE } from './sample.ts';
import { useServer } from './use-server.ts';

/**
 * The whole smoke test of a server example: start it as its own process, run the lookup checks
 * against it, then stop it with SIGTERM and expect a clean exit.
 */
export function serverSmokeSuite(
  command: () => ServerCommand | Promise<ServerCommand>,
  sample: LookupSample,
  /** The exit code of a clean shutdown on SIGTERM (`next start` exits with 143 = 128 + 15). */
  { cleanExitCode = 0 }: { cleanExitCode?: number } = {},
): void {
  const server = useServer(command);
  lookupChecks(server, sample);
  it('stops cleanly on SIGTERM', async () => {
    const code = await server.process.stop();
    expect(code, server.process.output).toBe(cleanExitCode);
  });
}

/**
 * The smoke test of an example started the way its README says, `node src/main.ts` (Node runs
 * TypeScript directly), on a free loopback port. `testFileUrl` is the test's `import.meta.url`.
 */
export function nodeExampleSmokeSuite(name: string, testFileUrl: string): void {
  describe(`examples/${name}`, () => {
    serverSmokeSuite(
      () => ({
        command: process.execPath,
        args: ['src/main.ts'],
        cwd: fileURLToPath(new URL('..', testFileUrl)),
        env: { HOST: '127.0.0.1', PORT: '0' },
      }),
      SAMPLE,
    );
  });
}
