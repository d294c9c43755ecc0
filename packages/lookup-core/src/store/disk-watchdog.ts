/**
 * Disk-full handling of the embedded store. PGlite answers a full disk in two ways: a table that
 * cannot grow fails its statement (SQLSTATE 53100), but a WAL segment that cannot be written
 * makes it spin for ever inside WebAssembly, a thread no signal handler or timer reaches. So a
 * write transaction is refused while the disk has less than two WAL segments free, and a
 * watchdog thread ends a process stuck on a full disk (figures and reasons:
 * docs/design/2026-11-29-embedded-store-faults.md).
 */
import { statfsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { DiskFullError } from '../model/errors.js';

/** PostgreSQL's WAL segment (PGlite keeps the default). */
const WAL_SEGMENT = 16 * 1024 * 1024;
/**
 * Below this much free space PGlite may need a WAL segment it cannot write: a write transaction is
 * not started, and a main thread that stops answering is taken for stuck.
 */
export const WRITE_RESERVE_BYTES = 2 * WAL_SEGMENT;

/** Free bytes on the disk holding `dir`; `Infinity` when the system cannot tell. */
export function freeBytes(dir: string): number {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Throws `DiskFullError` when the disk of `dir` has less than `WRITE_RESERVE_BYTES` free. */
export function ensureRoomToWrite(dir: string): void {
  if (freeBytes(dir) < WRITE_RESERVE_BYTES) throw new DiskFullError(dir);
}

/** Whether `error` is PostgreSQL's or the system's "no space left" (53100, ENOSPC, EDQUOT). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '53100' || code === 'ENOSPC' || code === 'EDQUOT') return true;
  return (
    error instanceof Error && /No space left on device|Disk quota exceeded/i.test(error.message)
  );
}

/** The worker's module: built beside this one, or run from the sources (tests run the CLI so). */
const workerModule = () =>
  new URL(
    import.meta.url.endsWith('.ts') ? './disk-watchdog-worker.ts' : './disk-watchdog-worker.js',
    import.meta.url,
  );

/**
 * Watches the disk of `dir` from a thread of its own, which ends the process once this thread
 * stops answering for 3 s with less than a WAL segment free (stuck in PGlite). Returns the stop.
 * Never keeps the process alive.
 */
export function watchDisk(dir: string): () => Promise<void> {
  let worker: Worker;
  try {
    worker = new Worker(workerModule(), {
      workerData: { dir, lowBytes: WAL_SEGMENT, pollMs: 250, answerMs: 3_000 },
    });
  } catch {
    // A runtime without worker threads keeps the statement-level checks only.
    return async () => {};
  }
  worker.unref();
  worker.on('message', () => worker.postMessage('here'));
  worker.on('error', () => {});
  return async () => {
    await worker.terminate();
  };
}
