/** Reading a Fetch request body under a size limit, refusing early instead of buffering a flood. */
import { HttpError } from './http.js';

/** Raised into a body stream by an adapter when the client is too slow to send it. */
export class BodyTimeoutError extends Error {
  /** Always `'BodyTimeoutError'`. */
  override readonly name = 'BodyTimeoutError';
  /** The error an adapter puts into a body stream whose client stopped sending. */
  constructor() {
    super('The request body did not arrive in time');
  }
}

/**
 * A Fetch request's body, at most `limit` bytes of it: refused as soon as it passes the limit (the
 * core refuses a declared Content-Length over it before asking).
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => {});
        throw new HttpError(413);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const timedOut =
      error instanceof Error &&
      (error.name === 'BodyTimeoutError' || error.name === 'TimeoutError');
    throw new HttpError(timedOut ? 408 : 400);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
