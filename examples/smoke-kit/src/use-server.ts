import { type ServerCommand, ServerProcess } from '@service/test-support';
import { afterAll, beforeAll } from 'vitest';

export interface RunningServer {
  readonly baseUrl: string;
  readonly process: ServerProcess;
}

/**
 * Starts the server before the file's tests and ends it after them. `command` may be async, for
 * a server that must be built first (Next.js).
 */
export function useServer(command: () => ServerCommand | Promise<ServerCommand>): RunningServer {
  let started: { server: ServerProcess; baseUrl: string } | undefined;
  beforeAll(async () => {
    started = await ServerProcess.start(await command());
  });
  afterAll(() => ServerProcess.killAll());
  const get = () => {
    if (started === undefined) throw new Error('the server did not start');
    return started;
  };
  return {
    get baseUrl() {
      return get().baseUrl;
    },
    get process() {
      return get().server;
    },
  };
}
