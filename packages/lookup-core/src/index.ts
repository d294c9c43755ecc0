export { normalizeDomain, normalizeEmail } from './normalize.js';
