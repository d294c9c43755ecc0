// A TypeScript app: compiled by tsc (which also checks check.mjs against the package's
// declarations), then run on Node.js.
import * as lib from '@service/lookup-client';
import { runFromCommandLine } from './check.mjs';

const notFound: typeof lib.LookupError = lib.NotFoundError;
if (!(notFound.prototype instanceof lib.LookupError)) throw new Error('NotFoundError is no LookupError');
await runFromCommandLine(lib);
