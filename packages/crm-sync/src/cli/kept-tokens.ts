/**
 * A renewed login is never lost. With refresh-token rotation the org revokes the old refresh
 * token as it hands out the new one, so when the token file cannot take the new one (a full
 * disk, a quota) it is kept in a file of the user's beside the system's temporary files, which
 * the next command reads and moves back; when that fails too, the user is told the token and the
 * remedy. The run itself goes on with the renewed session.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../salesforce/state/private-file.js';

/** Where the login of `tokenFile` waits when that file cannot be written: one per token file. */
function pendingTokenFile(tokenFile: string): string {
  const name = createHash('sha256').update(tokenFile).digest('hex').slice(0, 16);
  return join(tmpdir(), `service-crm-${userInfo().uid}`, `tokens-${name}.json`);
}

/** The login waiting for `tokenFile` (its JSON text), if a command could not save it there. */
export async function pendingLogin(tokenFile: string): Promise<string | undefined> {
  try {
    return await readFile(pendingTokenFile(tokenFile), 'utf8');
  } catch {
    return undefined;
  }
}

/** Saves the login `text` to `tokenFile`, and forgets the one waiting for it. */
export async function saveLogin(tokenFile: string, text: string): Promise<void> {
  await writePrivateFile(tokenFile, text);
  await rm(pendingTokenFile(tokenFile), { force: true });
}

/**
 * Saves a renewed login (`text`, holding `refreshToken`) to `tokenFile`; never throws. When the
 * file cannot be written, the login waits in `pendingTokenFile`, or else `warn` gives the user
 * the refresh token and what to do with it.
 */
export async function keepRenewedLogin(
  tokenFile: string,
  text: string,
  refreshToken: string | undefined,
  warn: (line: string) => void,
): Promise<void> {
  try {
    await saveLogin(tokenFile, text);
    return;
  } catch (error) {
    const why = (error as Error).message;
    const pending = pendingTokenFile(tokenFile);
    try {
      await writePrivateFile(pending, text);
      warn(
        `The renewed login could not be saved. ${why} It is kept in ${pending} (readable by you only) and used from there; the next command moves it back to ${tokenFile} once there is space.`,
      );
    } catch {
      warn(
        `The renewed login could not be saved. ${why} Nor could ${pending} be written. This command goes on with it. To keep the login, free some space, then put this refresh token as "refreshToken" in ${tokenFile}: ${refreshToken ?? '(none: run `service-crm login` again)'}`,
      );
    }
  }
}
