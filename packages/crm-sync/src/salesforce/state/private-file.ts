/** Files only their owner can read: token and journal files. */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A new file only: `O_EXCL` fails on anything already there, a symlink planted under the name
 * included, and `O_NOFOLLOW` refuses to follow one (Windows has no such flag and no such links
 * in a user's folder by default).
 */
const CREATE_NEW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** The disk is full, or the user's quota on it is used up. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** The free space of the disk holding `directory`, as words, or nothing when unknown. */
async function freeSpace(directory: string): Promise<string> {
  try {
    const { bavail, bsize } = await statfs(directory);
    return `, ${bavail * bsize} bytes free`;
  } catch {
    return '';
  }
}

/**
 * An error of writing `path` that names it: on a full disk (or quota), the disk holding it and
 * its free space; the system's code (`ENOSPC`, `EDQUOT`) is kept as `code`.
 */
async function writeError(path: string, error: unknown): Promise<Error> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined || !NO_SPACE.has(code)) return error as Error;
  const what = code === 'EDQUOT' ? 'the disk quota is used up' : 'no space is left on the disk';
  const named = new Error(
    `Cannot write ${path}: ${what} holding ${dirname(path)} (${code}${await freeSpace(dirname(path))}). Free some space there and run the command again.`,
    { cause: error },
  );
  return Object.assign(named, { code, path });
}

/**
 * Writes the file atomically with mode 0600 (its directory created 0700): the contents go to a
 * new file of a random name beside it, which then replaces `path`, so a failed write (a full
 * disk) leaves the old file whole. A rename replaces a symlink at `path` itself, never the file
 * it points to. A full disk fails with a message naming the file and the disk.
 */
export async function writePrivateFile(path: string, contents: string): Promise<void> {
  const temporary = `${path}.${randomBytes(12).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file = await open(temporary, CREATE_NEW, 0o600);
    try {
      await file.writeFile(contents);
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw await writeError(path, error);
  }
}
