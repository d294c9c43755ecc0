/**
 * One process per embedded data directory: PGlite is one process's database, and a second process
 * writing the same files loses data silently. The lock is a file in the directory holding the
 * holder's pid and start time, created with O_EXCL; it counts as released once that process is
 * gone, so a holder killed with SIGKILL releases it as the kernel ends the process (reasons and
 * the race left open: docs/design/2026-11-29-embedded-store-faults.md).
 */
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataDirLockedError } from '../model/errors.js';

/** The lock's file name inside the data directory. */
export const LOCK_FILE = 'service-lookup.lock';

/** Directories this process holds: a second store of the same process is refused too. */
const heldHere = new Set<string>();

/** A process's start time in clock ticks since boot (Linux), telling a reused pid from its holder. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may hold spaces, so count from its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

interface Holder {
  pid: number;
  started: string | null;
}

/** Whether the process that wrote `holder` still runs (the same process, not a reused pid). */
function alive(holder: Holder, dir: string): boolean {
  if (holder.pid === process.pid) return heldHere.has(dir);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists, owned by another user.
    if ((error as { code?: string }).code !== 'EPERM') return false;
  }
  const started = startTimeOf(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

function readHolder(file: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    if (typeof parsed.pid !== 'number') return undefined;
    return { pid: parsed.pid, started: parsed.started ?? null };
  } catch {
    return undefined;
  }
}

/**
 * Takes `dataDir` (created when missing) for this process; returns the release. Throws
 * `DataDirLockedError` while a live process holds it; a dead holder's lock is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  // Written whole beside it, then linked into place: a reader never sees a half-written lock.
  const mine = join(dir, `${LOCK_FILE}.${process.pid}`);
  writeFileSync(mine, JSON.stringify({ pid: process.pid, started: startTimeOf(process.pid) }));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, file);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(file);
      if (holder !== undefined && (alive(holder, dir) || attempt > 2))
        throw new DataDirLockedError(dir, holder.pid);
      // Left by a process that is gone: taken over.
      unlinkSync(file);
    }
  } finally {
    unlinkSync(mine);
  }
  heldHere.add(dir);
  return () => {
    heldHere.delete(dir);
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing to release.
    }
  };
}
