#!/usr/bin/env node
// The service-lookup command (cli.ts), behind the Node.js version check: the check is the only
// static import (bundled into this file), and the command is loaded with a dynamic one after it.
import { olderNodeMessage } from '@service/node-version';

const older = olderNodeMessage([22, 12]); // package.json engines.node: >=22.12

if (older !== undefined) {
  process.stderr.write(`service-lookup: ${older}\n`);
  process.exitCode = 2;
} else {
  void import('./cli.js');
}
