import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort, runScript, SAMPLE, serverSmokeSuite } from '@service/example-smoke-kit';
import { describe } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));
const next = createRequire(import.meta.url).resolve('next/dist/bin/next');
const env = { NEXT_TELEMETRY_DISABLED: '1' };

/** `next build`, once per test run; its output is kept for the failure message. */
async function build(): Promise<void> {
  const { code, stdout, stderr } = await runScript({ cwd, args: [next, 'build'], env });
  if (code !== 0) throw new Error(`next build failed (${code}):\n${stdout}${stderr}`);
}

describe('examples/nextjs (production build)', () => {
  serverSmokeSuite(
    async () => {
      await build();
      const port = await freePort();
      return {
        command: process.execPath,
        args: [next, 'start', '--hostname', '127.0.0.1', '--port', String(port)],
        cwd,
        env,
        // Next prints its address first and "Ready" once it accepts requests.
        ready: /Local:\s+(http:\/\/\S+)[\s\S]*Ready in/,
      };
    },
    SAMPLE,
    { cleanExitCode: 143 },
  );
});
