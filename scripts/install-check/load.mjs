// Loads a package's entries with `import`, as an ES module app does, and makes its calls.
import { run } from './calls.mjs';

await run(process.argv[2], (specifier) => import(specifier));
