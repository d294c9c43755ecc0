import { writeFileSync } from 'node:fs';
import { runCustomerOrg } from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';

const cli = process.argv[2]!;
let n = 0;
const run = await runCustomerOrg({
  companies: 5000,
  run: async (args, home) => {
    const r = await runCli(cli, args, { cwd: home, env: { SERVICE_CRM_HOME: home } });
    writeFileSync(`/tmp/dbg-${n++}.json`, r.stdout + '\n---\n' + r.stderr);
    return r;
  },
});
console.log(
  run.acceptedNotWritten,
  run.syncs.map((s) => s.failuresByStatus),
);
