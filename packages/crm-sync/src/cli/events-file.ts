/**
 * The companies a sync writes about: the events file ingested into an embedded lookup-core
 * store, read back as one aggregate per company of the workspace.
 */
import { stat } from 'node:fs/promises';
import type { ObservedCompany } from '@service/lookup-contract';
import { importLookupCore, importLookupCoreNode } from './lookup-core.js';
import { CliError, EXIT, type Io } from './output.js';

/**
 * The events file's lines, read at the byte level by lookup-core (a line that is not UTF-8 or
 * is too long comes as one `ingest` rejects with its line number, not as replacement characters).
 */
async function lines(path: string) {
  const unreadable = (why: string) =>
    new CliError(EXIT.usage, `Cannot read the events file ${path}: ${why}`);
  try {
    if (!(await stat(path)).isFile()) throw unreadable('not a file');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw unreadable((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  const { readNdjson } = await importLookupCoreNode();
  return readNdjson(path);
}

/** The workspace's companies observed in the events file at `path`; skipped lines go to stderr. */
export async function observedCompanies(
  path: string,
  workspace: string,
  io: Io,
): Promise<ObservedCompany[]> {
  const events = await lines(path);
  const { openEmbeddedStore } = await importLookupCore();
  const store = await openEmbeddedStore();
  try {
    const ingested = await store.ingest(events, {
      onProgress: (p) => io.progress(`reading events: ${p.read} lines`),
    });
    for (const r of ingested.rejected.slice(0, 5))
      io.err(`${path}:${r.line}: skipped: ${r.reason}`);
    if (ingested.rejected.length > 5)
      io.err(`... and ${ingested.rejected.length - 5} more lines skipped`);
    const observed: ObservedCompany[] = [];
    for await (const company of store.readAggregates({ workspace })) observed.push(company);
    return observed;
  } finally {
    await store.close();
  }
}
