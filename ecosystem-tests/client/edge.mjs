// Vercel's edge-runtime: the bundle leaves the checks on the global object, which the driver
// calls inside the runtime's context.
import * as lib from '@service/lookup-client';
import { runChecks } from './check.mjs';

globalThis.runChecks = (servers) => runChecks(lib, servers).then(JSON.stringify);
