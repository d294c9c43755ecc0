/**
 * Secret keys for `serve` read from a file, so no key appears on a command line (which `ps` shows
 * to every local user). One `KEY[=WORKSPACE]` per line; blank lines and `#` comments are skipped.
 * The file must be private to its owner, as ssh requires of a private key: a key another local user
 * can read is already leaked, and one they can write lets them add their own.
 */
import { open } from 'node:fs/promises';

/** Group and other permission bits: any of them set makes the file refused. */
const SHARED_BITS = 0o077;

export class KeysFileError extends Error {
  override readonly name = 'KeysFileError';
}

/** The key specs of `path`, refused when group or others have any permission on it. */
export async function readKeysFile(path: string): Promise<string[]> {
  const handle = await open(path, 'r');
  try {
    // The mode of the file opened (fstat), not of whatever the name points to a moment later.
    const { mode } = await handle.stat();
    // Windows has no such bits: node reports every file as readable by all there.
    if (process.platform !== 'win32' && (mode & SHARED_BITS) !== 0) {
      const shown = (mode & 0o777).toString(8).padStart(4, '0');
      throw new KeysFileError(
        `${path} is accessible to group or others (mode ${shown}); run chmod 600 ${path}`,
      );
    }
    const text = await handle.readFile('utf8');
    return text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
  } finally {
    await handle.close();
  }
}
