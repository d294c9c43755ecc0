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
import type { FixedKeyResolver } from './keys.js';

/** Whether `presented` is `held`, in a time that depends only on `presented`'s length. */
export function sameKey(presented: string, held: string): boolean {
  let difference = presented.length ^ held.length;
  for (let i = 0; i < presented.length; i++)
    difference |= presented.charCodeAt(i) ^ (held.charCodeAt(i) | 0);
  return difference === 0;
}

/** Resolves a key as `keys` does, remembering an accepted one for `connection` (when given). */
export type ConnectionKeyResolver = (
  key: string,
  connection: object | undefined,
) => string | null | Promise<string | null>;

export function rememberPerConnection(keys: FixedKeyResolver): ConnectionKeyResolver {
  const accepted = new WeakMap<object, { key: string; workspace: string }>();
  return (key, connection) => {
    if (connection === undefined) return keys.resolve(key);
    const held = accepted.get(connection);
    if (held !== undefined && sameKey(key, held.key)) return held.workspace;
    const workspace = keys.resolve(key);
    if (workspace !== null) accepted.set(connection, { key, workspace });
    return workspace;
  };
}
