// Runs service-crm with this process's arguments and streams; loaded by src/cli.ts once the
// Node.js version is known to be supported.
import { main } from './main.js';
import { processIo } from './output.js';

void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
