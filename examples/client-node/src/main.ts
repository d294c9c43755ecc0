/**
 * Calls a running lookup server with @service/lookup-client: prints what it knows about a contact
 * (or a company), then makes the three calls the spec answers with an error and shows how each
 * typed error is handled.
 *
 *   node src/main.ts [email-or-domain]
 */
import {
  ConnectionError,
  InvalidInputError,
  LookupClient,
  type LookupQuery,
  NotFoundError,
  UnauthorizedError,
} from '@service/lookup-client';

const {
  // Any of the server examples listens here by default.
  SERVICE_LOOKUP_URL = 'http://127.0.0.1:3000',
  // The sample key of samples/README.md; the servers accept it by default.
  SERVICE_SECRET_KEY = 'sk_live_sample_default_000000000000000000',
} = process.env;
const subject = process.argv[2] ?? 'ann.lee@acme.com';
const query: LookupQuery = subject.includes('@') ? { email: subject } : { domain: subject };

const client = new LookupClient({ baseUrl: SERVICE_LOOKUP_URL, secretKey: SERVICE_SECRET_KEY });

/** Prints the answer of a lookup; returns false when the error is not one this script expects. */
async function show(title: string, lookup: () => Promise<unknown>): Promise<boolean> {
  console.log(`\n${title}`);
  try {
    await lookup();
    return true;
  } catch (error) {
    // Branch on the class (or on `error.code`, which also works across two copies of the package).
    if (error instanceof InvalidInputError) {
      console.log(`  400 ${error.name}: the lookup needs an email or a domain (${error.message})`);
    } else if (error instanceof UnauthorizedError) {
      console.log(`  401 ${error.name}: check SERVICE_SECRET_KEY (${error.message})`);
    } else if (error instanceof NotFoundError) {
      console.log(`  404 ${error.name}: not observed in this workspace; the lookup never enriches`);
    } else if (error instanceof ConnectionError) {
      console.error(`  ${error.name}: no lookup server at ${SERVICE_LOOKUP_URL}: ${error.message}`);
      console.error('  Start one first, e.g. ./dev --filter @service/example-node-http start');
      return false;
    } else {
      throw error;
    }
    return true;
  }
}

async function lookupWithActivity(): Promise<void> {
  const { company, contacts } = await client.lookup(query, { includeActivity: true });
  console.log(
    `  ${company.name ?? company.domain} (${company.domain}), ${company.industry ?? 'industry unknown'}: ` +
      `sessions ${company.service_sessions}, visitors ${company.service_visitors}, ` +
      `purchase intent ${company.service_purchase_intent}, last seen ${company.service_last_seen}`,
  );
  for (const contact of contacts) {
    const [latest] = contact.site_activity;
    console.log(
      `  - ${contact.email} ${contact.name ?? ''}${contact.title ? `, ${contact.title}` : ''}: ` +
        `sessions ${contact.service_sessions}, LinkedIn engagements ${contact.linkedin_activity.length}` +
        (latest ? `; latest visit ${latest.start_time}: ${latest.pages_visited.join(' ')}` : ''),
    );
  }
}

const steps: Array<[title: string, lookup: () => Promise<unknown>]> = [
  [`Lookup of ${subject}, with activity:`, lookupWithActivity],
  ['A lookup with an empty email field:', () => client.lookup({ email: '' })],
  [
    'A lookup with a key the server does not know:',
    () =>
      new LookupClient({
        baseUrl: SERVICE_LOOKUP_URL,
        secretKey: 'sk_live_not_a_key_this_server_knows_0000',
      }).lookup(query),
  ],
  [
    'A lookup of an email the service never observed:',
    () => client.lookup({ email: 'nobody@never-observed.example' }),
  ],
];
for (const [title, lookup] of steps) {
  if (!(await show(title, lookup))) {
    process.exitCode = 1;
    break;
  }
}
