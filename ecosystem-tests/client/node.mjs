// An ES module app (Node.js, Bun, Deno): imports the package and runs the checks.
import * as lib from '@service/lookup-client';
import { runFromCommandLine } from './check.mjs';

await runFromCommandLine(lib);
