import type { LookupSample } from './lookup-checks.ts';

/** The repository's sample data (samples/README.md): the key the examples accept by default and contacts it holds. */
export const SAMPLE: LookupSample = {
  secretKey: 'sk_live_sample_default_000000000000000000',
  email: 'ann.lee@acme.com',
  domain: 'acme.com',
  otherWorkspaceEmail: 'alice.abernathy@umbrella.eu',
};
