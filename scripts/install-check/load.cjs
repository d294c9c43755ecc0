// Loads a package's entries with `require()`, as a CommonJS app does, and makes its calls.
import('./calls.mjs').then(({ run }) => run(process.argv[2], (specifier) => require(specifier)));
