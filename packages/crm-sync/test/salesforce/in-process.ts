// Runs `service-crm` in this process (its `main`), with the output kept in lines: fast enough
// for tests that run many syncs, and it shares this process's clock with the emulator.
import { main } from '../../src/cli/main.js';

export interface InProcessRun {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

export async function runMain(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<InProcessRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (line: string) => out.push(line),
    err: (line: string) => err.push(line),
    progress: () => {},
    stdin: async () => '',
  };
  const code = await main(args, io, env);
  return { code, out, err };
}
