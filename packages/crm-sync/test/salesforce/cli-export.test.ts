// Issue 12 item 10: `fields export` writes a complete Salesforce DX project and prints a deploy
// command that works as printed. The command is run by a shell exactly as printed, with a
// stand-in `sf` that records where and how it was called (a deploy needs an org); then the
// Salesforce CLI's own converter (`sf project convert source`, the @salesforce/cli package, run
// offline) converts the project from that directory with that manifest, with no error.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { customFields } from '../../src/index.js';
import { buildCli, packageDir } from './build-cli.js';

const exec = promisify(execFile);
const SF = join(packageDir, 'node_modules/@salesforce/cli/bin/run.js');
let cli = '';
let home = '';

beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-export'));
  home = await mkdtemp(join(tmpdir(), 'service-crm-export-'));
}, 60_000);

/** Runs `line` with sh, as a user pastes it, with an `sf` that records its directory and args. */
async function runAsPrinted(line: string): Promise<{ cwd: string; args: string[] }> {
  const bin = join(home, 'fake-bin');
  const log = join(home, 'sf-call.txt');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'sf'), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${log}'\n`);
  await chmod(join(bin, 'sf'), 0o755);
  await exec('sh', ['-c', line], { cwd: home, env: { PATH: `${bin}:/usr/bin:/bin` } });
  const [cwd = '', ...args] = (await readFile(log, 'utf8')).trimEnd().split('\n');
  return { cwd, args };
}

/** The Salesforce CLI itself, offline: no telemetry, no update check, its own home. */
async function sf(args: string[], cwd: string) {
  const sfHome = join(home, 'sf-home');
  const { stdout } = await exec(process.execPath, [SF, ...args, '--json'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: sfHome,
      SF_DISABLE_TELEMETRY: 'true',
      SF_AUTOUPDATE_DISABLE: 'true',
      SF_SKIP_NEW_VERSION_CHECK: 'true',
    },
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as {
    status: number;
    result?: { location: string };
    message?: string;
    warnings?: unknown[];
  };
}

describe('service-crm fields export', () => {
  it('writes a DX project whose printed deploy command works, and sf converts it without errors', async () => {
    const result = await runCli(cli, ['fields', 'export', '--out', 'service fields'], {
      cwd: home,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = result.stdout.trimEnd().split('\n').at(-1)?.trim() ?? '';
    expect(printed).toBe(
      "cd 'service fields' && sf project deploy start --manifest manifest/package.xml",
    );

    const call = await runAsPrinted(printed);
    expect(call.cwd).toBe(join(home, 'service fields'));
    expect(call.args.slice(0, 3)).toEqual(['project', 'deploy', 'start']);
    const manifest = call.args[call.args.indexOf('--manifest') + 1] ?? '';
    const project = JSON.parse(await readFile(join(call.cwd, 'sfdx-project.json'), 'utf8'));
    expect(project.packageDirectories).toEqual([{ path: 'force-app', default: true }]);

    const converted = join(home, 'converted');
    const answer = await sf(
      ['project', 'convert', 'source', '--manifest', manifest, '--output-dir', converted],
      call.cwd,
    );
    expect(answer).toMatchObject({ status: 0, result: { location: converted }, warnings: [] });

    // Every field of the catalogue is in the converted objects, and the permission set too.
    const objects = [...new Set(customFields.map((f) => f.object))];
    for (const object of objects) {
      const xml = await readFile(join(converted, 'objects', `${object}.object`), 'utf8');
      const names = [...xml.matchAll(/<fields>\s*<fullName>([^<]+)<\/fullName>/g)].map((m) => m[1]);
      expect(names.sort()).toEqual(
        customFields
          .filter((f) => f.object === object)
          .map((f) => f.apiName)
          .sort(),
      );
    }
    const pkg = await readFile(join(converted, 'package.xml'), 'utf8');
    expect(pkg.match(/<members>[^<]+__c<\/members>/g)).toHaveLength(customFields.length);
    expect(pkg).toContain('<members>Service_Fields</members>');
    await readFile(join(converted, 'permissionsets', 'Service_Fields.permissionset'), 'utf8');
  }, 120_000);

  it('keeps the sfdx-project.json of an existing project it exports into', async () => {
    const dir = join(home, 'existing');
    await mkdir(dir, { recursive: true });
    const own = '{"packageDirectories":[{"path":"force-app","default":true}],"name":"mine"}\n';
    await writeFile(join(dir, 'sfdx-project.json'), own);
    const result = await runCli(cli, ['fields', 'export', '--out', dir], { cwd: home });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/its sfdx-project.json kept as it was/);
    expect(result.stdout).toContain(`cd ${dir} && sf project deploy start`);
    expect(await readFile(join(dir, 'sfdx-project.json'), 'utf8')).toBe(own);
  });
});
