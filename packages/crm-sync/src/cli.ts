#!/usr/bin/env node
// The service-crm command: see src/cli/main.ts.
import { main } from './cli/main.js';
import { processIo } from './cli/output.js';

void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
