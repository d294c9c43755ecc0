export { freePort } from './free-port.ts';
export { type LookupSample, lookupChecks } from './lookup-checks.ts';
export { type ServerCommand, ServerProcess } from './process.ts';
export { runScript, type ScriptRun } from './run-script.ts';
export { type LoopbackOrg, salesforceEnv } from './salesforce-env.ts';
export { SAMPLE } from './sample.ts';
export { nodeExampleSmokeSuite, serverSmokeSuite } from './smoke-suite.ts';
export { type RunningServer, useServer } from './use-server.ts';
