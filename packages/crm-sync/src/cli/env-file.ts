// service-crm reads a `.env` file in the directory it runs in, so a session written there (by
// `salesforce-emulator --write-env .env`, or by hand) is used without loading it into the shell.
// Variables already in the environment win, as with Node.js's --env-file and dotenv.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { CliError, EXIT } from './output.js';

/** `env` with the variables of `dir`'s `.env` file it does not set itself; `env` when there is none. */
export function withEnvFile(env: NodeJS.ProcessEnv, dir = process.cwd()): NodeJS.ProcessEnv {
  const file = join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw new CliError(EXIT.usage, `Cannot read ${file}: ${(error as Error).message}`);
  }
  return { ...parseEnv(text), ...env };
}
