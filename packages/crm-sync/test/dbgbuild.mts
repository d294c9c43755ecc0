import { buildCli } from './salesforce/build-cli.ts';

console.log(await buildCli(process.cwd() + '/node_modules/.cache/dbgcli'));
