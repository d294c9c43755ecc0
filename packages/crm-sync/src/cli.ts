#!/usr/bin/env node
// The service-crm command (src/cli/main.ts). This entry checks the Node.js version before it
// loads anything else: on an older Node, jsforce's HTTP client throws while being imported, so
// this file has no static import and the command is loaded with a dynamic one afterwards.
const NEEDED = [22, 19] as const; // package.json engines.node: >=22.19 (undici 8, under jsforce)
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

if (major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1])) {
  const message = `this command needs Node.js ${NEEDED.join('.')} or newer (this is ${process.versions.node}): install a current Node.js LTS release and run it again.`;
  if (process.argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({ error: { code: 'node_version', message } })}\n`);
  else process.stderr.write(`service-crm: ${message}\n`);
  process.exitCode = 2;
} else {
  void import('./cli/run.js');
}
