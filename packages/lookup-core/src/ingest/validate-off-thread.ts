/**
 * NDJSON lines validated and encoded on a worker thread, in order. The thread that ingests keeps
 * batching and the database (PGlite runs on it), and validating and encoding the next lines runs
 * beside it.
 */
import { Worker } from 'node:worker_threads';
import { LookupCoreError } from '../model/errors.js';
import type { ParseOptions } from '../model/events.js';
import { UnreadableLine } from '../model/unreadable-line.js';
import {
  type EncodedRows,
  type ParsedRow,
  type ParsedVersion,
  ValidatedLines,
  withRows,
} from '../store/sql/batch-rows.js';

type Item = UnreadableLine | ValidatedLines;

/** Lines sent to the worker at a time. */
const CHUNK_LINES = 2_000;

/** The worker's module: built beside this one, or run from the sources (tests run the CLI so). */
const workerModule = () =>
  new URL(
    import.meta.url.endsWith('.ts') ? './validate-worker.ts' : './validate-worker.js',
    import.meta.url,
  );

/**
 * The items of `source` in order: runs of strings as `ValidatedLines`, and each `UnreadableLine` as
 * it is. An `UnreadableLine` is passed on only after everything before it, and before the next
 * line is read, so its bytes can still be streamed from the source.
 *
 * Up to `linesAhead` lines (and a quarter more) are validated ahead of those taken, which bounds
 * memory. Give it the batch size: the embedded store writes a batch on this thread, blocking it,
 * so the next batch must already be on its way (figures: docs/design/2026-11-27-measured-choices.md).
 */
export async function* validatedOffThread(
  source: AsyncIterable<string | UnreadableLine>,
  options: ParseOptions,
  linesAhead: number,
): AsyncGenerator<Item> {
  const chunksInFlight = Math.max(2, Math.ceil((1.25 * linesAhead) / CHUNK_LINES));
  const worker = new Worker(workerModule(), {
    workerData: options,
    // Room for a few chunks' short-lived objects, so few of them live through a scavenge and get
    // copied: garbage collection took 24% of this thread's time with the default, 7% with this
    // (CPU profile of `ingest` at 300,000 sessions).
    resourceLimits: { maxYoungGenerationSizeMb: 192 },
  });
  const waiting = new Map<
    number,
    { resolve: (r: Array<ParsedRow | null>) => void; reject: (e: Error) => void }
  >();
  /** Why the worker stopped, once it has: later chunks fail at once rather than wait forever. */
  let stopped: Error | undefined;
  const fail = (error: Error) => {
    stopped ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  worker.on(
    'message',
    ({
      id,
      parsed,
      rows,
    }: {
      id: number;
      parsed: Array<ParsedVersion | null>;
      rows: EncodedRows;
    }) => {
      waiting.get(id)?.resolve(withRows(parsed, rows));
      waiting.delete(id);
    },
  );
  worker.on('error', fail);
  worker.on('exit', (code) =>
    fail(
      new LookupCoreError(
        'validation_thread_stopped',
        `the validation thread stopped (exit code ${code})`,
      ),
    ),
  );

  let nextId = 0;
  const validate = (lines: string[]): Promise<ValidatedLines> => {
    const id = nextId++;
    const results = new Promise<Array<ParsedRow | null>>((resolve, reject) => {
      if (stopped) reject(stopped);
      else waiting.set(id, { resolve, reject });
    });
    if (!stopped) worker.postMessage({ id, lines });
    const validated = results.then((parsed) => new ValidatedLines(lines, parsed));
    // Awaited in order below; until then a failure must not count as unhandled.
    validated.catch(() => {});
    return validated;
  };

  const inFlight: Array<Promise<ValidatedLines>> = [];
  let chunk: string[] = [];
  try {
    for await (const item of source) {
      if (item instanceof UnreadableLine) {
        if (chunk.length > 0) inFlight.push(validate(chunk));
        chunk = [];
        while (inFlight.length > 0) yield await (inFlight.shift() as Promise<ValidatedLines>);
        yield item;
        continue;
      }
      chunk.push(item);
      if (chunk.length < CHUNK_LINES) continue;
      inFlight.push(validate(chunk));
      chunk = [];
      if (inFlight.length >= chunksInFlight)
        yield await (inFlight.shift() as Promise<ValidatedLines>);
    }
    if (chunk.length > 0) inFlight.push(validate(chunk));
    while (inFlight.length > 0) yield await (inFlight.shift() as Promise<ValidatedLines>);
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
