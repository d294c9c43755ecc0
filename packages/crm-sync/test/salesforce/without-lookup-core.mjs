// Loader hook (node --import): @service/lookup-core cannot be found, as in an install without
// that optional peer dependency. The import is resolved from a directory with no node_modules,
// so the error is Node's own.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '@service/lookup-core' || specifier.startsWith('@service/lookup-core/'))
      return nextResolve(specifier, { ...context, parentURL: 'file:///nonexistent/app.js' });
    return nextResolve(specifier, context);
  },
});
