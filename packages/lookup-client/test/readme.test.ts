/**
 * Every ```ts block of the README is type-checked as its own module against the source, with the
 * package's compiler options: a README that drifts from the code fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function readmeSnippets(): Map<string, string> {
  const readme = readFileSync(here('../README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  // Virtual files inside the package, so module format and types resolve as for the tests.
  return new Map(blocks.map((code, index) => [here(`./readme/snippet-${index + 1}.ts`), code]));
}

function typeErrors(snippets: Map<string, string>): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(here('../tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json could not be read');
  const options = {
    ...config.options,
    noEmit: true,
    paths: {
      '@service/lookup-client': [here('../src/index.ts')],
      '@service/lookup-client/testing': [here('../src/testing.ts')],
    },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => snippets.has(name) || fileExists.call(host, name);
  host.readFile = (name) => snippets.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const code = snippets.get(name);
    return code === undefined
      ? getSourceFile.call(host, name, language, ...rest)
      : ts.createSourceFile(name, code, language);
  };
  const program = ts.createProgram([...snippets.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.replace(/.*\//, '')}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : 'config';
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('README', () => {
  const snippets = readmeSnippets();

  it('has the snippets the docs promise', () => {
    expect(snippets.size).toBeGreaterThanOrEqual(8);
  });

  it('type-checks every ts snippet', () => {
    expect(typeErrors(snippets)).toEqual([]);
  }, 60_000);

  it('fails a snippet that drifts from the code', () => {
    const drifted = new Map([
      [
        here('./readme/drifted.ts'),
        "import { LookupClient } from '@service/lookup-client';\n" +
          "new LookupClient({ baseUrl: 'https://x.example', retries: 3 });\n",
      ],
    ]);
    expect(typeErrors(drifted).join('\n')).toMatch(/retries/);
  }, 60_000);
});
