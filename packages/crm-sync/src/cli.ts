#!/usr/bin/env node
// The service-crm command (src/cli/run.ts), behind the Node.js version check: on an older Node,
// jsforce's HTTP client throws while being imported, so the check is the only static import
// (bundled into this file) and the command is loaded with a dynamic one after it.
import { olderNodeMessage } from '@service/node-version';

const older = olderNodeMessage([22, 19]); // package.json engines.node: >=22.19 (undici 8, under jsforce)

if (older !== undefined) {
  if (process.argv.includes('--json'))
    process.stdout.write(
      `${JSON.stringify({ error: { code: 'node_version', message: older } })}\n`,
    );
  else process.stderr.write(`service-crm: ${older}\n`);
  process.exitCode = 2;
} else {
  void import('./cli/run.js');
}
