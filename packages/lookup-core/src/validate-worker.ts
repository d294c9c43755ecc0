/**
 * The worker thread of `validatedOffThread`: validates and encodes the NDJSON lines it is sent, in
 * order, and answers each message with their results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ParseOptions } from './events.js';
import { parseBatchRow } from './sql/batch-rows.js';

const options = workerData as ParseOptions;

parentPort?.on('message', ({ id, lines }: { id: number; lines: string[] }) => {
  parentPort?.postMessage({ id, results: lines.map((line) => parseBatchRow(line, options)) });
});
