// The READMEs name only runtimes the matrix tests: each runtime a claim names has a row in the
// root README's "Runtimes" table, the table is the one the last run's results.json renders, and the
// Node.js minimum lookup-client claims is the oldest Node.js row. Run by run.mjs after a passing run;
// `node --test ecosystem-tests/readme.test.mjs` runs it alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { END, README, readRuntimesTable, renderTable, START } from './lib/readme.mjs';

const CLIENT_README = new URL('../packages/lookup-client/README.md', import.meta.url);
const root = readFileSync(README, 'utf8');
const client = readFileSync(CLIENT_README, 'utf8');
const table = readRuntimesTable(root);
const results = JSON.parse(readFileSync(new URL('./results.json', import.meta.url), 'utf8'));

/** How a claim may name a runtime, and the table's name for it. */
const NAMES = [
  [/\bNode(\.js)?\b/, 'Node.js'],
  [/\bBun\b/, 'Bun'],
  [/\bDeno\b/, 'Deno'],
  [/\bCloudflare Workers\b|\bworkerd\b/, 'workerd (miniflare)'],
  [/\bVercel('s)? Edge\b|\bedge-runtime\b/, 'edge-runtime'],
  [/\bbrowsers?\b/i, 'Chromium (headless)'],
  [/\bNetlify\b|\bFastly\b|\bReact Native\b|\bwinterjs\b|\bllrt\b/i, undefined],
];

const section = (text, heading) => {
  const start = text.indexOf(`\n${heading}\n`);
  assert.notEqual(start, -1, `no "${heading}" section`);
  return text.slice(start, text.indexOf('\n## ', start + 1));
};

const claims = {
  "the root README's lookup-client row": root
    .split('\n')
    .find((line) => line.startsWith('| [`@service/lookup-client`]')),
  "lookup-client's README, its opening list": client
    .split('\n')
    .find((line) => line.startsWith('- Runs on')),
  "lookup-client's README, Runtimes": section(client, '## Runtimes'),
};

for (const [where, text] of Object.entries(claims)) {
  test(`every runtime ${where} names has a row in the Runtimes table`, () => {
    assert.ok(text, `${where} not found`);
    for (const [pattern, runtime] of NAMES) {
      if (!pattern.test(text)) continue;
      assert.ok(
        runtime &&
          table.some(
            (row) => row.package === '@service/lookup-client' && row.runtime.startsWith(runtime),
          ),
        `${where} names ${pattern.exec(text)[0]}, which the Runtimes table has no lookup-client row for`,
      );
    }
  });
}

test('the Runtimes table is the one the last run wrote', () => {
  const between = root.slice(root.indexOf(START) + START.length, root.indexOf(END)).trim();
  assert.equal(between, renderTable(results));
  assert.ok(
    results.every((row) => row.ok),
    'results.json holds a failed row',
  );
});

test("lookup-client's Node.js minimum is the oldest Node.js row", () => {
  const [, claimed] = /Node\.js (\d+\.\d+)\+/.exec(
    claims["lookup-client's README, its opening list"],
  );
  const versions = table
    .filter((row) => row.runtime.startsWith('Node.js'))
    .map((row) => row.version);
  const oldest = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
  assert.ok(
    oldest.startsWith(`${claimed}.`),
    `the README claims Node.js ${claimed}+, the oldest row is ${oldest}`,
  );
});
