/**
 * Secret keys: a presented key maps to the workspace it may read. Only SHA-256 digests of the
 * configured keys are held, and a presented key is compared against every configured digest in
 * constant time, so neither the keys nor which one almost matched can be read from memory dumps or
 * timing. (A presented key that was accepted is held by its connection: connection-keys.ts.)
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { isWellFormedKey, parseKeySpec } from '@service/lookup-contract';

export { isWellFormedKey, parseKeySpec };

/** One configured secret key and the workspace it reads. */
export interface KeyEntry {
  /** `sk_live_` then 24 to 504 RFC 6750 token68 characters (see `isWellFormedKey`). */
  key: string;
  /** The workspace the key reads (default `'default'`). */
  workspace?: string;
}

/** Maps a presented key to its workspace, or `null` when it opens nothing. */
export interface KeyResolver {
  /** The workspace `presentedKey` opens, or `null`. */
  resolve(presentedKey: string): string | null | Promise<string | null>;
}

/** A resolver whose answers never change: the one `createKeyResolver` builds. */
export interface FixedKeyResolver extends KeyResolver {
  resolve(presentedKey: string): string | null;
}

const digest = (key: string) => hash('sha256', key, 'buffer');
const DIGEST_BYTES = 32;

/**
 * Builds a resolver from configured keys (several per workspace allowed, for rotation). Throws a
 * `TypeError` naming the position of a malformed key, never the key itself.
 */
export function createKeyResolver(entries: Iterable<KeyEntry>): FixedKeyResolver {
  const table: Array<{ digest: Buffer; workspace: string }> = [];
  let position = 0;
  for (const entry of entries) {
    position++;
    if (typeof entry.key !== 'string' || !isWellFormedKey(entry.key)) {
      throw new TypeError(
        `key #${position} is not a live secret key (sk_live_ + 24 to 504 letters, digits or -._~+/, then any = padding)`,
      );
    }
    table.push({ digest: digest(entry.key), workspace: entry.workspace ?? 'default' });
  }
  // This runs on every request: the one-shot `hash` renders the digest as a `binary` (latin1) string,
  // a third of the cost of a new Buffer per call, copied byte for byte into one reused Buffer.
  const presented = Buffer.alloc(DIGEST_BYTES);
  return {
    resolve(presentedKey) {
      if (!isWellFormedKey(presentedKey)) return null;
      presented.write(hash('sha256', presentedKey, 'binary'), 'binary');
      let match: string | null = null;
      // No early exit: the time taken does not depend on which entry matches.
      for (const entry of table) {
        if (timingSafeEqual(entry.digest, presented) && match === null) match = entry.workspace;
      }
      return match;
    },
  };
}
