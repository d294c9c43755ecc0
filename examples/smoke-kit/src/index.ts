export type { ServerCommand } from '@service/test-support';
export { freePort } from './free-port.ts';
export type { LookupSample } from './lookup-checks.ts';
export { runScript, type ScriptRun } from './run-script.ts';
export { type LoopbackOrg, salesforceEnv } from './salesforce-env.ts';
export { SAMPLE } from './sample.ts';
export { nodeExampleSmokeSuite, serverSmokeSuite } from './smoke-suite.ts';
