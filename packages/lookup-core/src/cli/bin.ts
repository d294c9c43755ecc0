#!/usr/bin/env node
// The service-lookup command (cli.ts), behind the Node.js version check: the check and the
// restart of `serve` with glibc's trim threshold are the static imports (bundled into this file),
// and the command is loaded with a dynamic one after them.
import { olderNodeMessage } from '@service/node-version';
import { serveWithTrimmedMalloc } from './malloc-trim.js';

const older = olderNodeMessage([22, 12]); // package.json engines.node: >=22.12

if (older !== undefined) {
  process.stderr.write(`service-lookup: ${older}\n`);
  process.exitCode = 2;
} else {
  serveWithTrimmedMalloc();
  void import('./cli.js');
}
