#!/usr/bin/env node
// The service-lookup command (cli.ts). This entry checks the Node.js version before it loads
// anything else: on an older Node, a dependency throws while being imported, so this file has no
// static import and the command is loaded with a dynamic one afterwards.
const REQUIRED = [22, 12] as const; // package.json engines.node: >=22.12
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

if (major < REQUIRED[0] || (major === REQUIRED[0] && minor < REQUIRED[1])) {
  process.stderr.write(
    `service-lookup: this command needs Node.js ${REQUIRED.join('.')} or newer (this is ${process.versions.node}): install a current Node.js LTS release and run it again.\n`,
  );
  process.exitCode = 2;
} else {
  void import('./cli.js');
}
