// What a command run as a child process printed, and how it exited.
import type { ChildProcess } from 'node:child_process';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Resolves when the child has exited and its output is closed. */
export function collect(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
