/**
 * `@service/lookup-core` is an optional peer dependency: only `sync --events` needs its store
 * (PGlite), so `npm install @service/crm-sync` does not pull it in. Loaded here, on first use.
 */
import { CliError, EXIT } from './output.js';

const PACKAGE = '@service/lookup-core';

export function importLookupCore(): Promise<typeof import('@service/lookup-core')> {
  return imported(() => import('@service/lookup-core'));
}

/** Its Node entry: the byte-level NDJSON line reader `ingest` takes. */
export function importLookupCoreNode(): Promise<typeof import('@service/lookup-core/node')> {
  return imported(() => import('@service/lookup-core/node'));
}

async function imported<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      (error as Error).message.includes(`'${PACKAGE}'`) // not a package that it imports
    ) {
      throw new CliError(
        EXIT.usage,
        `sync --events reads the events with ${PACKAGE}, which is not installed: it is an optional peer dependency of @service/crm-sync. Install it beside it (npm install ${PACKAGE}) and run the command again.`,
        'missing_dependency',
      );
    }
    throw error;
  }
}
