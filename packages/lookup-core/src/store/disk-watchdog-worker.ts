/**
 * The thread of `watchDisk`: polls the free space of the data directory's disk and, while it is
 * below a WAL segment, asks the main thread to answer. A main thread that does not answer for
 * `answerMs` is stuck in PGlite's WebAssembly (PGlite can spin for ever when a WAL segment cannot
 * be written), where no signal handler or timer of its own can run: this thread says so on
 * standard error and ends the process. Committed batches stay, as after any crash.
 */
import { statfsSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { dir, lowBytes, pollMs, answerMs } = workerData as {
  dir: string;
  lowBytes: number;
  pollMs: number;
  answerMs: number;
};

let askedAt: number | undefined;
parentPort?.on('message', () => {
  askedAt = undefined;
});

function freeBytes(): number {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

setInterval(() => {
  if (askedAt !== undefined && performance.now() - askedAt > answerMs) {
    writeSync(
      2,
      `service-lookup: no space left on the disk holding ${dir}: the embedded store stopped writing; ending the process (batches committed before are kept; free some space, then run again)\n`,
    );
    process.kill(process.pid, 'SIGKILL');
  }
  if (askedAt !== undefined || freeBytes() >= lowBytes) return;
  askedAt = performance.now();
  parentPort?.postMessage('answer');
}, pollMs);
