// Starts `service-lookup serve` from an installed lookup-core, as its README says to, on a free
// loopback port with the sample events; resolves once it prints where it listens.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onPath } from './projects.mjs';

const STARTUP_MS = 60_000;

export function serve(runtime, project, { events, key }) {
  const bin = join(project, 'node_modules', '.bin', 'service-lookup');
  const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--events', events], {
    env: onPath(runtime, { ...process.env, SERVICE_SECRET_KEYS: `${key}=default` }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      child.kill();
      reject(new Error(`service-lookup serve ${why}: ${output.trim()}`));
    };
    const timer = setTimeout(
      () => fail(`did not listen within ${STARTUP_MS / 1000} s`),
      STARTUP_MS,
    );
    const read = (chunk) => {
      output += chunk;
      const listening = /^listening on (http:\/\/\S+)$/m.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ baseUrl: listening[1], stop: () => child.kill() });
    };
    const onExit = (code) => {
      clearTimeout(timer);
      fail(`exited with ${code}`);
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('exit', onExit);
  });
}
