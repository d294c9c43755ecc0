/**
 * `serve` on Linux with glibc runs itself again with glibc's trim threshold fixed at 128 KiB.
 * V8's compilers free what they allocated while tiering PGlite's WebAssembly up, and glibc's
 * default (a threshold that grows with the largest block freed, up to 64 MiB) kept about 110 MB
 * of it in the process for good: the sample server idled at 344-405 MB, and at 253-272 MB with the
 * threshold fixed (figures: docs/design/2026-11-29-lookup-at-the-limit.md). glibc reads the
 * setting from the environment only when a process starts, and `process.execve` keeps the process
 * (its pid, signals and standard streams) while replacing its image.
 */
const SETTING = 'MALLOC_TRIM_THRESHOLD_';
const BYTES = String(128 * 1024);

/** Runs this command again with the setting when it serves on glibc and was not given one (unset or empty). */
export function serveWithTrimmedMalloc(): void {
  if (process.argv[2] !== 'serve' || process.platform !== 'linux') return;
  if (process.env[SETTING] || typeof process.execve !== 'function') return;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } };
  if (report?.header?.glibcVersionRuntime === undefined) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      {
        ...process.env,
        [SETTING]: BYTES,
      },
    );
  } catch {
    // Serving without the setting only costs memory.
  }
}
