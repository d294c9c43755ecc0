/** Files only their owner can read: token and journal files. */
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes the file atomically with mode 0600 (its directory created 0700). */
export async function writePrivateFile(path: string, contents: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, contents, { mode: 0o600 });
  await chmod(temporary, 0o600); // in case an existing file or a umask widened it
  await rename(temporary, path);
}
