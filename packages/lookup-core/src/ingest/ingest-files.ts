/**
 * `service-lookup ingest FILE...` and `serve --events FILE`: NDJSON files into a store, with a
 * progress line on a terminal, a summary per file, and rejected lines written to `--rejects FILE`.
 * The flags are defined here so the two commands read them the same way.
 */

import { setImmediate } from 'node:timers/promises';
import type { IngestProgress, LookupStore } from '../model/types.js';
import { DEFAULT_BATCH_SIZE } from '../store/sql/ingest.js';
import { DEFAULT_MAX_LINE_BYTES, readNdjson } from './ndjson.js';
import { openRejectsFile } from './rejects.js';
import { validatedOffThread } from './validate-off-thread.js';

/** The ingest flags, as `node:util` `parseArgs` options. */
export const INGEST_FLAGS = {
  rejects: { type: 'string' },
  'max-line-bytes': { type: 'string' },
  'max-future-skew': { type: 'string' },
  'batch-size': { type: 'string' },
} as const;

export const INGEST_FLAGS_HELP = `  --rejects FILE        write each rejected line to FILE, as read, with its line number and reason
  --max-line-bytes N    reject lines longer than N bytes (default ${DEFAULT_MAX_LINE_BYTES})
  --max-future-skew S   reject timestamps more than S seconds in the future (default 86400)
  --batch-size N        events per transaction (default 100000; at most 64 MiB of input each)`;

export interface IngestSettings {
  rejects?: string;
  maxLineBytes: number;
  maxFutureSkewSeconds?: number;
  batchSize?: number;
}

const wholeNumber = (flag: string, value: string, min: number): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new RangeError(`${flag} must be a whole number >= ${min}, got "${value}"`);
  return n;
};

/** The settings the flags name; throws a `RangeError` saying which flag is wrong. */
export function ingestSettings(values: {
  rejects?: string | undefined;
  'max-line-bytes'?: string | undefined;
  'max-future-skew'?: string | undefined;
  'batch-size'?: string | undefined;
}): IngestSettings {
  const settings: IngestSettings = {
    maxLineBytes:
      values['max-line-bytes'] === undefined
        ? DEFAULT_MAX_LINE_BYTES
        : wholeNumber('--max-line-bytes', values['max-line-bytes'], 1),
  };
  if (values.rejects !== undefined) settings.rejects = values.rejects;
  if (values['max-future-skew'] !== undefined)
    settings.maxFutureSkewSeconds = wholeNumber('--max-future-skew', values['max-future-skew'], 0);
  if (values['batch-size'] !== undefined)
    settings.batchSize = wholeNumber('--batch-size', values['batch-size'], 1);
  return settings;
}

/**
 * Stops passing items on once the process is asked to stop, so the current batch still commits.
 * Each item first lets the event loop turn: SIGINT and SIGTERM reach their handlers only then,
 * and a file read ahead is otherwise ingested to its end in promise callbacks alone, the signal
 * seen only after (the command exited 0 on a SIGINT so).
 */
function untilStopped<T>(source: AsyncIterable<T>, stop: AbortSignal): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      for await (const item of source) {
        await setImmediate();
        if (stop.aborted) return;
        yield item;
      }
    },
  };
}

function progressLine(file: string, p: IngestProgress, startedAt: number): string {
  const seconds = (performance.now() - startedAt) / 1000;
  const rate = Math.round(p.read / Math.max(seconds, 0.001));
  return `${file}: ${p.read.toLocaleString('en')} lines, ${rate.toLocaleString('en')}/s, ${p.ingested} new, ${p.unchanged} unchanged, ${p.replaced} replaced, ${p.rejected} rejected`;
}

/** Where the command writes: text to standard output and error, and whether the latter is a terminal. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A progress line is shown, and rewritten, only on a terminal. */
  readonly tty: boolean;
}

/** Ingests the files in order; returns how many lines were rejected in all. */
export async function ingestFiles(
  store: LookupStore,
  files: string[],
  settings: IngestSettings,
  stop: AbortSignal,
  io: Io,
): Promise<number> {
  const { tty } = io;
  const rejects =
    settings.rejects === undefined ? undefined : await openRejectsFile(settings.rejects);
  let rejectedInAll = 0;
  try {
    for (const file of files) {
      const startedAt = performance.now();
      const lines = readNdjson(file, { maxLineBytes: settings.maxLineBytes });
      // The lines arrive validated, so the skew is the validation thread's to apply. Stopping is
      // checked on the validated chunks (2,000 lines each), which may have been read far ahead.
      const result = await store.ingest(
        untilStopped(
          validatedOffThread(
            lines,
            {
              now: Date.now(),
              ...(settings.maxFutureSkewSeconds !== undefined && {
                maxFutureSkewSeconds: settings.maxFutureSkewSeconds,
              }),
            },
            settings.batchSize ?? DEFAULT_BATCH_SIZE,
          ),
          stop,
        ),
        {
          ...(tty && {
            onProgress: (p: IngestProgress) =>
              io.err(`\r${progressLine(file, p, startedAt)}\x1b[K`),
          }),
          ...(rejects && { onRejected: (r, item) => rejects.write(file, r, item) }),
          ...(settings.batchSize !== undefined && { batchSize: settings.batchSize }),
        },
      );
      if (tty) io.err('\r\x1b[K');
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
      io.out(
        `${file}: ${result.ingested} ingested, ${result.unchanged} unchanged, ${result.replaced} replaced, ${result.rejected.length} rejected (${seconds} s)\n`,
      );
      for (const r of result.rejected.slice(0, 20)) io.err(`  line ${r.line}: ${r.reason}\n`);
      if (result.rejected.length > 20)
        io.err(`  ... and ${result.rejected.length - 20} more rejected lines\n`);
      rejectedInAll += result.rejected.length;
      if (stop.aborted) break;
    }
  } finally {
    await rejects?.close();
  }
  if (rejectedInAll > 0 && settings.rejects !== undefined)
    io.err(`rejected lines written to ${settings.rejects}\n`);
  return rejectedInAll;
}
