/** Files only their owner can read: token and journal files. */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A new file only: `O_EXCL` fails on anything already there, a symlink planted under the name
 * included, and `O_NOFOLLOW` refuses to follow one (Windows has no such flag and no such links
 * in a user's folder by default).
 */
const CREATE_NEW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Writes the file atomically with mode 0600 (its directory created 0700): the contents go to a
 * new file of a random name beside it, which then replaces `path`. A rename replaces a symlink
 * at `path` itself, never the file it points to.
 */
export async function writePrivateFile(path: string, contents: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(12).toString('hex')}.tmp`;
  const file = await open(temporary, CREATE_NEW, 0o600);
  try {
    await file.writeFile(contents);
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
}
