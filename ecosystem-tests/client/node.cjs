// A CommonJS app (Node.js, Bun): requires the package and runs the checks.
const lib = require('@service/lookup-client');

import('./check.mjs').then(({ runFromCommandLine }) => runFromCommandLine(lib));
