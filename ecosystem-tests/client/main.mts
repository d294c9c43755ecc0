// A TypeScript app: compiled by tsc, which also checks check.mjs against the package's
// declarations (checkJs), then run on Node.js.
import * as lib from '@service/lookup-client';
import { runFromCommandLine } from './check.mjs';

await runFromCommandLine(lib);
