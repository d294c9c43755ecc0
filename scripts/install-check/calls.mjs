// The real calls made through each installed package, the same under `import` and `require`: the
// entries come in already loaded (load.mjs imports them, load.cjs requires them), so every check
// runs against the build of that module format. Copied into each installed project and run there.
import { createServer } from 'node:http';

const { LOOKUP_BASE_URL, SERVICE_SECRET_KEY, SAMPLE_EVENTS } = process.env;

function expect(ok, message) {
  if (!ok) throw new Error(message);
}

export const checks = {
  '@service/lookup-client': {
    entries: ['@service/lookup-client'],
    async call([{ LookupClient, NotFoundError }], answered) {
      const client = new LookupClient({ baseUrl: LOOKUP_BASE_URL, secretKey: SERVICE_SECRET_KEY });
      const { company, contacts } = await client.lookup({
        domain: 'acme.com',
        includeActivity: true,
      });
      answered();
      expect(
        company.name === 'Acme Corp',
        `lookup of acme.com answered ${JSON.stringify(company)}`,
      );
      expect(
        Array.isArray(contacts[0]?.site_activity),
        'lookup with activity has no site_activity',
      );
      const missing = await client.lookup({ domain: 'unknown.example' }).catch((error) => error);
      expect(
        missing instanceof NotFoundError && missing.code === 'not_found',
        `an unknown domain rejected with ${missing}, not this entry's NotFoundError`,
      );
    },
  },
  '@service/lookup-core': {
    entries: ['@service/lookup-core', '@service/lookup-core/node'],
    async call(
      [{ createLookupHandler, openEmbeddedStore }, { readNdjson, toNodeListener }],
      answered,
    ) {
      const store = await openEmbeddedStore();
      const server = createServer();
      try {
        await store.ingest(readNdjson(SAMPLE_EVENTS));
        const handler = createLookupHandler({
          store,
          keys: [{ key: SERVICE_SECRET_KEY, workspace: 'default' }],
        });
        server.on('request', toNodeListener(handler));
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        const response = await fetch(
          `http://127.0.0.1:${server.address().port}/api/service/lookup`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${SERVICE_SECRET_KEY}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ domain: 'acme.com' }),
          },
        );
        answered();
        const text = await response.text();
        expect(response.status === 200, `the node listener answered ${response.status} ${text}`);
        expect(JSON.parse(text).company.name === 'Acme Corp', `the node listener answered ${text}`);
      } finally {
        server.close();
        await store.close();
      }
    },
  },
  '@service/crm-sync': {
    entries: ['@service/crm-sync'],
    async call([{ computePipelineStage }], answered) {
      const { stage } = computePipelineStage({
        accountType: 'Customer - Direct',
        opportunities: [],
      });
      answered();
      expect(stage === 'Customer', `the pipeline stage of a customer account came out ${stage}`);
    },
  },
  '@service/salesforce-emulator': {
    entries: ['@service/salesforce-emulator'],
    async call([{ startEmulator, seedFromFile }], answered) {
      const emulator = await startEmulator();
      try {
        seedFromFile(emulator.org, { companies: 1 });
        const { instanceUrl, accessToken } = emulator.issueTokens();
        const response = await fetch(
          `${instanceUrl}/services/data/v59.0/query?q=${encodeURIComponent('SELECT Name FROM Account')}`,
          { headers: { authorization: `Bearer ${accessToken}` } },
        );
        const { records } = await response.json();
        answered();
        expect(
          records?.[0]?.Name === 'Company 0',
          `the emulator answered ${JSON.stringify(records)}`,
        );
      } finally {
        await emulator.close();
      }
    },
  },
};

/**
 * Loads the entries of `name` with `load`, makes its calls, and prints the milliseconds from the
 * process's start to the first answer; a failure is printed and exits 1.
 */
export async function run(name, load) {
  try {
    const { entries, call } = checks[name];
    const loaded = await Promise.all(entries.map(load));
    let firstAnswer;
    await call(loaded, () => {
      firstAnswer ??= performance.now();
    });
    console.log(JSON.stringify({ firstAnswer }));
  } catch (error) {
    console.error(error?.stack ?? String(error));
    process.exitCode = 1;
  }
}
