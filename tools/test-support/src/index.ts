/**
 * Test helpers shared by the packages, the examples and the benchmarks. The older Node is its own
 * entry (`@service/test-support/older-node`): finding it runs `node --version` when imported.
 */
export { type CliRun, type CliRunOptions, runCli } from './cli-runner.ts';
export { close, listen } from './loopback.ts';
export { requires } from './missing-prerequisite.ts';
export { type ServerCommand, ServerProcess } from './server-process.ts';
export { createTestDatabase, DATABASE_URL, type TestDatabase } from './test-database.ts';
