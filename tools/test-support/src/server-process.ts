import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ServerCommand {
  /** The executable, e.g. `process.execPath` to run a script with this Node. */
  command: string;
  args: string[];
  cwd: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Printed on standard output once the server accepts requests; group 1 is its base URL. */
  ready?: RegExp;
}

/** What the examples and `service-lookup serve` print once they accept requests. */
const LISTENING = /listening on (http:\/\/[^\s/]+)/;

/** A server (an example, `service-lookup serve`) running as its own process, started the way a user starts it. */
export class ServerProcess {
  /** Every process not yet known to have exited, so a failed or timed-out start leaves none behind. */
  static readonly #running = new Set<ServerProcess>();
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  #stdout = '';
  #stderr = '';

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#exited = once(child, 'exit').then(([code]) => {
      ServerProcess.#running.delete(this);
      return code as number | null;
    });
    ServerProcess.#running.add(this);
    child.stdout?.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
  }

  /** Starts the command and resolves once it prints its ready line. */
  static async start(options: ServerCommand): Promise<{ server: ServerProcess; baseUrl: string }> {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(child);
    const ready = options.ready ?? LISTENING;
    const baseUrl = await new Promise<string | undefined>((resolve) => {
      const check = () => {
        const url = ready.exec(server.#stdout)?.[1];
        if (url !== undefined) {
          child.stdout?.off('data', check);
          resolve(url);
        }
      };
      child.stdout?.on('data', check);
      void server.#exited.then(() => resolve(undefined));
    });
    if (baseUrl === undefined) {
      throw new Error(`the server exited before it was ready:\n${server.output}`);
    }
    return { server, baseUrl };
  }

  /** What the process printed so far (standard output, then standard error), for failure messages. */
  get output(): string {
    return `${this.#stdout}${this.#stderr}`;
  }

  /** What the process printed on standard output so far. */
  get stdout(): string {
    return this.#stdout;
  }

  /** What the process printed on standard error so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** The process id, e.g. to read the server's memory from /proc. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Asks the server to stop (SIGTERM) and resolves with its exit code. */
  async stop(): Promise<number | null> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGTERM');
    }
    return this.#exited;
  }

  /** Ends every process still running: the clean-up of a test file. */
  static killAll(): void {
    for (const server of ServerProcess.#running) server.kill();
  }

  /** Ends the process at once: clean-up after a failure, never a test's verdict. */
  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGKILL');
    }
  }
}
