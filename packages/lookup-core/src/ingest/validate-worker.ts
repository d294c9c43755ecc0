/**
 * The worker thread of `validatedOffThread`: validates and encodes the NDJSON lines it is sent, in
 * order, and answers each message with their results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ParseOptions } from '../model/events.js';
import { parseLines } from '../store/sql/batch-rows.js';

const options = workerData as ParseOptions;

parentPort?.on('message', ({ id, lines }: { id: number; lines: string[] }) => {
  const { parsed, rows } = parseLines(lines, options);
  // The offsets move rather than copy; the strings are copied either way.
  parentPort?.postMessage({ id, parsed, rows }, [rows.ends.buffer]);
});
