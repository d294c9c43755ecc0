// Child processes run without blocking this one, which serves the loopback fronts they call.
import { spawn } from 'node:child_process';

const RUN_TIMEOUT_MS = 180_000;
const STARTUP_MS = 60_000;

/** Runs a command to its end; `{ code, stdout, stderr, ms }`. */
export function run(bin, args, { cwd, env = process.env, input } = {}) {
  const started = performance.now();
  const child = spawn(bin, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve) => {
    child.on('error', (error) => (stderr += String(error)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** Runs a command that must succeed; its stdout. */
export async function runOrThrow(bin, args, options) {
  const ran = await run(bin, args, options);
  if (ran.code !== 0)
    throw new Error(
      `${bin} ${args.join(' ')} exited ${ran.code}: ${(ran.stderr + ran.stdout).trim()}`,
    );
  return ran;
}

/** Starts a server that prints `listening on <url>`; resolves with `{ url, stop }` once it has. */
export function startServer(bin, args, { cwd, env = process.env, input } = {}) {
  const child = spawn(bin, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(input);
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      child.kill();
      reject(new Error(`${args.join(' ')} ${why}: ${output.trim()}`));
    };
    const timer = setTimeout(
      () => fail(`did not listen within ${STARTUP_MS / 1000} s`),
      STARTUP_MS,
    );
    const onExit = (code) => {
      clearTimeout(timer);
      fail(`exited with ${code}`);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
      const listening = /^listening on (http:\/\/\S+)$/m.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ url: listening[1], stop: () => child.kill() });
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('exit', onExit);
  });
}
