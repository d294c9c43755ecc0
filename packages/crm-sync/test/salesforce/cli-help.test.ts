// Issue 12 item 10: every command and subcommand answers --help with its own usage, options and
// examples (not the overview), `help <command>` says the same, and --version prints the version.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';

let cli = '';
beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-help'));
}, 60_000);

const run = (args: string[]) => runCli(cli, args, { cwd: packageDir });

const COMMANDS = [
  'login',
  'fields',
  'fields plan',
  'fields apply',
  'fields export',
  'stage',
  'sync',
] as const;

describe('service-crm --help', () => {
  it('prints the overview, naming every command and how to get its help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: service-crm <command> \[options\]/);
    for (const command of COMMANDS.filter((c) => c !== 'fields'))
      expect(result.stdout).toContain(`\n  ${command}`);
    expect(result.stdout).toContain('Run `service-crm <command> --help`');
    expect((await run([])).stdout).toBe(result.stdout);
  });

  it.each(COMMANDS)('%s --help prints that command’s own usage and examples', async (command) => {
    const words = command.split(' ');
    const overview = (await run(['--help'])).stdout;
    const result = await run([...words, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toBe(overview);
    expect(result.stdout).toMatch(new RegExp(`^Usage: service-crm ${command}\\b`));
    const examples = result.stdout.split('\nExamples:\n')[1] ?? '';
    expect(examples).toMatch(/^ {2}\S/);
    // Every example of a command runs that command (or, for export, deploys what it wrote).
    for (const line of examples.split('\n\n')[0]?.split('\n') ?? [])
      expect(line).toMatch(
        new RegExp(`^ {2}(service-crm ${words[0]}|cd \\S+ && sf project deploy)`),
      );
    // The same from `help <command>` and with -h.
    expect((await run(['help', ...words])).stdout).toBe(result.stdout);
    expect((await run([...words, '-h'])).stdout).toBe(result.stdout);
  });

  it('lists the options of the command it describes', async () => {
    expect((await run(['sync', '--help'])).stdout).toMatch(/--events FILE[\s\S]*--dry-run/);
    expect((await run(['fields', 'export', '--help'])).stdout).toMatch(/--out DIR/);
    const plan = (await run(['fields', 'plan', '--help'])).stdout;
    expect(plan).toMatch(/--access-token -/);
    expect(plan).not.toMatch(/--out DIR|--events/);
  });

  it('refuses help for a command that does not exist', async () => {
    const result = await run(['help', 'deploy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown command deploy/);
  });
});

describe('service-crm --version', () => {
  it('prints the package version, also as JSON', async () => {
    const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
    const result = await run(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(JSON.parse((await run(['--version', '--json'])).stdout)).toEqual({ version });
  });
});
