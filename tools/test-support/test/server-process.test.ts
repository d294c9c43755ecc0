import { describe, expect, it } from 'vitest';
import { ServerProcess } from '../src/server-process.ts';

// Small Node programs stand in for the examples: the kit is judged on what it does with a process.
const node = (script: string) => ({ command: process.execPath, args: ['-e', script], cwd: '.' });

describe('ServerProcess', () => {
  it('resolves with the URL of the ready line and stops the process with SIGTERM', async () => {
    const { server, baseUrl } = await ServerProcess.start(
      node(`
        console.log('warming up');
        setTimeout(() => console.log('listening on http://127.0.0.1:4321'), 50);
        process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
        setInterval(() => {}, 1000);
      `),
    );
    expect(baseUrl).toBe('http://127.0.0.1:4321');
    expect(await server.stop()).toBe(0);
    expect(server.output).toContain('bye');
  });

  it('rejects with what the process printed when it exits before it is ready', async () => {
    await expect(
      ServerProcess.start(node(`console.error('events file not found'); process.exit(2);`)),
    ).rejects.toThrow(/exited before it was ready:\nevents file not found/);
  });

  it('waits for a custom ready line', async () => {
    const { server, baseUrl } = await ServerProcess.start({
      ...node(`console.log(' - Local: http://localhost:5555'); setInterval(() => {}, 1000);`),
      ready: /Local:\s+(http:\/\/\S+)/,
    });
    expect(baseUrl).toBe('http://localhost:5555');
    server.kill();
    expect(await server.stop()).toBeNull();
  });
});
