/**
 * A key accepted on a connection, remembered for that connection: a keep-alive client presents
 * the same key on every request, and the configured keys' SHA-256 check was the largest cost of a
 * cached answer (docs/design/2026-11-29-lookup-at-the-limit.md, "The key's check").
 *
 * Only for the resolver the core builds from key entries, whose answers never change; your own
 * `KeyResolver` is asked every time (it may revoke a key). The comparison with the remembered key
 * takes a time that depends only on the presented key's length, so a connection that a proxy
 * shares between clients learns nothing of another client's key from it.
 */
import { createKeyResolver, type KeyEntry, type KeyResolver } from './keys.js';

/** Whether `presented` is `held`, in a time that depends only on `presented`'s length. */
export function sameKey(presented: string, held: string): boolean {
  let difference = presented.length ^ held.length;
  for (let i = 0; i < presented.length; i++)
    difference |= presented.charCodeAt(i) ^ (held.charCodeAt(i) | 0);
  return difference === 0;
}

/** Resolves a key for a request that came on `connection` (when the transport has one). */
export type ConnectionKeyResolver = (
  key: string,
  connection: object | undefined,
) => string | null | Promise<string | null>;

/**
 * Your own resolver, asked every time; or the resolver built from key entries, whose accepted
 * keys are remembered per connection.
 */
export function connectionKeyResolver(
  keys: KeyResolver | Iterable<KeyEntry>,
): ConnectionKeyResolver {
  if ('resolve' in keys) return (key) => keys.resolve(key);
  const fixed = createKeyResolver(keys);
  const accepted = new WeakMap<object, { key: string; workspace: string }>();
  return (key, connection) => {
    if (connection === undefined) return fixed.resolve(key);
    const held = accepted.get(connection);
    if (held !== undefined && sameKey(key, held.key)) return held.workspace;
    const workspace = fixed.resolve(key);
    if (workspace !== null) accepted.set(connection, { key, workspace });
    return workspace;
  };
}
