/**
 * What the client needs to know about the runtime, read without Node built-ins so the same code
 * runs in Node, Bun, Deno, edge workers and (when allowed) browsers.
 */

/** A page in a browser. Deno, Bun and workers have no `document`, so they are not browsers here. */
export function isBrowser(): boolean {
  return typeof window !== 'undefined' && typeof document !== 'undefined';
}

/** `process.env[name]` where a `process` exists; Deno throws without --allow-env. */
export function fromEnvironment(
  name: 'SERVICE_SECRET_KEY' | 'SERVICE_BASE_URL',
): string | undefined {
  const runtime = globalThis as { process?: { env?: Record<string, string | undefined> } };
  try {
    return runtime.process?.env?.[name] || undefined;
  } catch {
    return undefined;
  }
}
