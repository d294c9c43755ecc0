/**
 * The `./node` entry. Node adapters: the lookup as a `node:http` / Express / Fastify-raw listener,
 * and NDJSON files as input for `store.ingest`.
 */

export {
  type NodeListener,
  type NodeListenerOptions,
  type NodeRequest,
  toNodeListener,
} from './http/node.js';
export {
  DEFAULT_MAX_LINE_BYTES,
  type NdjsonOptions,
  readNdjson,
} from './ingest/ndjson.js';
export { UnreadableLine } from './model/unreadable-line.js';
