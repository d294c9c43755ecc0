/**
 * The worker thread of `validatedOffThread`: validates the NDJSON lines it is sent, in order, and
 * answers each message with their results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ParseOptions, parseEvent } from './events.js';

const options = workerData as ParseOptions;

parentPort?.on('message', ({ id, lines }: { id: number; lines: string[] }) => {
  parentPort?.postMessage({ id, results: lines.map((line) => parseEvent(line, options)) });
});
