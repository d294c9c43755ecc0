import { nodeExampleSmokeSuite } from '@service/example-smoke-kit';

// The example as its own process, called through @service/lookup-client (see examples/smoke-kit).
nodeExampleSmokeSuite('fastify', import.meta.url);
