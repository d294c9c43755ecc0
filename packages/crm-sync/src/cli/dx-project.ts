/**
 * `service-crm fields export`: the fields as a complete Salesforce DX project, which
 * `sf project deploy start` deploys as it is (it needs `sfdx-project.json` at the root), and the
 * command that does so, with paths that work from where export was run.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_API_VERSION } from '../metadata/requests.js';
import type { SourceFile } from '../metadata/source-format.js';

export interface DxProject {
  /** The files written, relative to the project directory. */
  readonly files: readonly string[];
  /** False when the directory already had an `sfdx-project.json`, which is kept as it is. */
  readonly projectFileWritten: boolean;
  /** A shell command that deploys the project, run from the current directory. */
  readonly deployCommand: string;
}

const PROJECT_FILE = 'sfdx-project.json';
const MANIFEST = 'manifest/package.xml';

/** The project file: one package directory, the source files' `force-app`. */
function projectFile(dir: string): string {
  const project = {
    packageDirectories: [{ path: 'force-app', default: true }],
    name: basename(resolve(dir)),
    namespace: '',
    sourceApiVersion: DEFAULT_API_VERSION,
  };
  return `${JSON.stringify(project, null, 2)}\n`;
}

/** `dir` as one shell word. */
function shellWord(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Writes `sources` (paths relative to the project root) and the project file under `dir`. */
export async function writeDxProject(
  dir: string,
  sources: readonly SourceFile[],
): Promise<DxProject> {
  const projectFileWritten = !(await exists(join(dir, PROJECT_FILE)));
  const files = [
    ...sources,
    ...(projectFileWritten ? [{ path: PROJECT_FILE, contents: projectFile(dir) }] : []),
  ];
  for (const file of files) {
    const path = join(dir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.contents);
  }
  const deploy = `sf project deploy start --manifest ${MANIFEST}`;
  return {
    files: files.map((f) => f.path),
    projectFileWritten,
    // sf finds the project from the working directory, so the command runs inside it.
    deployCommand: resolve(dir) === process.cwd() ? deploy : `cd ${shellWord(dir)} && ${deploy}`,
  };
}
