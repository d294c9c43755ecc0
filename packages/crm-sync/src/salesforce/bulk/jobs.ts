/**
 * Bulk API 2.0 jobs through jsforce's job classes (`IngestJobV2`, `QueryJobV2`) over the
 * connection's jsforce `Connection`, so its session refresh applies; each call is counted in
 * `stats.calls` and fails with a `SalesforceError`. Jobs are polled with exponential backoff.
 * Only insert and update ingest jobs can be made: there is no delete or hardDelete job.
 */
import type { IngestJobV2 } from '@jsforce/jsforce-node/lib/api/bulk2.js';
import type { CrmObject } from '../../model/objects.js';
import {
  parseLimitInfo,
  type SalesforceConnection,
  type Transport,
} from '../connection/connection.js';
import type { JsforceConnection } from '../connection/jsforce.js';
import { SalesforceError } from '../errors.js';

/** The ingest operations this package sends. Records are never deleted. */
export const INGEST_OPERATIONS = ['insert', 'update'] as const;
export type IngestOperation = (typeof INGEST_OPERATIONS)[number];

export type JobState =
  | 'Open'
  | 'UploadComplete'
  | 'InProgress'
  | 'JobComplete'
  | 'Failed'
  | 'Aborted';

/** Job info as Salesforce reports it (the fields this package reads). */
export interface JobInfo {
  readonly id: string;
  readonly state: JobState;
  readonly numberRecordsProcessed?: number;
  readonly numberRecordsFailed?: number;
  readonly errorMessage?: string;
}

/** How a Bulk API 2.0 job is polled until it finishes: backoff and how long to wait in all. */
export interface BulkPolling {
  /** First wait after closing a job, in ms (default 500), doubled per poll. */
  readonly initialDelayMs?: number;
  /** Longest wait between polls, in ms (default 10,000). */
  readonly maxDelayMs?: number;
  /** Give up waiting after this many ms (default 30 minutes); the job is left to resume. */
  readonly timeoutMs?: number;
}

// jsforce's classes are typed for its own Connection class; ours is the same object, described
// by the members this package uses.
type AnyConnection = ConstructorParameters<typeof IngestJobV2>[0];

type Counted = JsforceConnection & {
  _transport?: Transport;
  limitInfo?: { apiUsage?: { used: number; limit: number } };
};

/**
 * jsforce's `Connection.request` notes each answer's `Sforce-Limit-Info` in `limitInfo` (where
 * the connection's `usage` comes from); its Bulk API 2.0 classes send through their own HTTP
 * layer, which does not. They get a view of the connection whose transport notes it the same
 * way, so bulk calls keep `usage` (and `clockOffset`) current as composite calls do. The
 * connection itself is left as it is (it may be the caller's).
 */
const views = new WeakMap<SalesforceConnection, AnyConnection>();
function jsforceOf(connection: SalesforceConnection): AnyConnection {
  const known = views.get(connection);
  if (known) return known;
  const jsforce = connection.jsforce as Counted;
  const transport = jsforce._transport;
  const view = transport
    ? Object.create(jsforce, {
        _transport: {
          value: Object.assign(Object.create(transport) as Transport, {
            httpRequest(request: unknown, options?: unknown) {
              const sent = transport.httpRequest(request, options);
              sent.then((response) => {
                const usage = parseLimitInfo(response?.headers?.['sforce-limit-info'] ?? null);
                if (usage) jsforce.limitInfo = { apiUsage: { used: usage.used, limit: usage.max } };
                connection.noteDate(response?.headers?.date);
              }, ignore);
              return sent;
            },
          }),
        },
      })
    : jsforce;
  views.set(connection, view as AnyConnection);
  return view as AnyConnection;
}
// A failed request is the caller's to handle, through the promise it was handed.
const ignore = () => {};
// Polling is ours (with backoff), so jsforce's own polling options are never used.
const pollingOptions = { pollInterval: 1000, pollTimeout: 0 };
/**
 * Sent again when the server closed the connection before answering: reads (job info, results)
 * and the creation of a job (a job created twice leaves one Open and empty, holding nothing).
 */
const RESENDABLE = { safeToResend: true } as const;

/** jsforce's Bulk API 2.0 and HTTP modules, loaded on first use: commands start without them. */
const loadJsforceBulk = () =>
  Promise.all([
    import('@jsforce/jsforce-node/lib/api/bulk2.js'),
    import('@jsforce/jsforce-node/lib/http-api.js'),
  ] as const);
let modules: ReturnType<typeof loadJsforceBulk> | undefined;
const jsforceBulk = () => {
  modules ??= loadJsforceBulk();
  return modules;
};

async function ingestJob(connection: SalesforceConnection, id: string) {
  const [{ IngestJobV2 }] = await jsforceBulk();
  return new IngestJobV2(jsforceOf(connection), { id, pollingOptions });
}

/** Creates an ingest job; refuses any operation but insert and update before sending. */
export async function openIngestJob(
  connection: SalesforceConnection,
  object: CrmObject,
  operation: IngestOperation,
): Promise<string> {
  if (!(INGEST_OPERATIONS as readonly string[]).includes(operation)) {
    throw new SalesforceError(
      'invalid_options',
      `A Bulk API ${String(operation)} job is not made: the service only inserts and updates records`,
    );
  }
  const [{ IngestJobV2 }] = await jsforceBulk();
  const job = new IngestJobV2(jsforceOf(connection), {
    bodyParams: { object, operation, contentType: 'CSV', lineEnding: 'LF' },
    pollingOptions,
  });
  await connection.call('POST /jobs/ingest', 'bulk:ingest', () => job.open(), RESENDABLE);
  return String(job.id);
}

/** Uploads the job's CSV (one request), then marks it UploadComplete so processing starts. */
export async function uploadAndClose(
  connection: SalesforceConnection,
  id: string,
  csv: string,
): Promise<void> {
  const job = await ingestJob(connection, id);
  await connection.call(`PUT /jobs/ingest/${id}/batches`, 'bulk:upload', () => job.uploadData(csv));
  await connection.call(`PATCH /jobs/ingest/${id}`, 'bulk:close', () => job.close());
}

/**
 * Uploads and closes the job, and when an answer was lost (a reset, a timeout), asks the job what
 * became of it: past Open, the close reached the org (true); still Open, whether its data arrived
 * is unknown, so it is aborted (nothing of an Open job is processed) and false says its rows need
 * a new job.
 * https://developer.salesforce.com/docs/platform/api-asynch/guide/close-job.html
 */
export async function uploadAndCloseOrAbort(
  connection: SalesforceConnection,
  id: string,
  csv: string,
): Promise<boolean> {
  try {
    await uploadAndClose(connection, id, csv);
    return true;
  } catch (error) {
    if (!(error instanceof SalesforceError && error.code === 'network')) throw error;
    if ((await checkJob(connection, 'ingest', id)).state !== 'Open') return true;
    // An Open job is never processed: one whose abort is lost too is left Open, harmless.
    await abortIngestJob(connection, id).catch((abort: unknown) => {
      if (!(abort instanceof SalesforceError && abort.code === 'network')) throw abort;
    });
    return false;
  }
}

/** Aborts a job that has not finished (an Open job of an interrupted run: nothing processed). */
export async function abortIngestJob(connection: SalesforceConnection, id: string): Promise<void> {
  const job = await ingestJob(connection, id);
  await connection.call(`PATCH /jobs/ingest/${id}`, 'bulk:abort', () => job.abort());
}

/** The job's info now (one call). */
export async function checkJob(
  connection: SalesforceConnection,
  kind: 'ingest' | 'query',
  id: string,
): Promise<JobInfo> {
  const [{ QueryJobV2 }] = await jsforceBulk();
  const job =
    kind === 'ingest'
      ? await ingestJob(connection, id)
      : new QueryJobV2(jsforceOf(connection), { id, pollingOptions });
  const check = (): PromiseLike<unknown> => job.check();
  return (await connection.call(
    `GET /jobs/${kind}/${id}`,
    'bulk:poll',
    check,
    RESENDABLE,
  )) as JobInfo;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A job still running when the polling gave up (`timeoutMs`). Salesforce goes on with it: its
 * records' job id is in the journal, so the next run waits for it instead of writing them again.
 */
export class BulkJobTimeout extends SalesforceError {
  override name = 'BulkJobTimeout';
  readonly jobId: string;
  constructor(id: string, state: JobState, timeoutMs: number) {
    super(
      'request_failed',
      `Bulk API job ${id} is still ${state} after ${Math.round(timeoutMs / 1000)} s: Salesforce goes on processing it. Run the same sync again later: it picks the job up from the journal and writes none of its records twice.`,
    );
    this.jobId = id;
  }
}

/** A job Salesforce failed as a whole: state Failed before it processed any record. */
export const failedWhole = (info: JobInfo): boolean =>
  info.state === 'Failed' && (info.numberRecordsProcessed ?? 0) === 0;

/**
 * A job Salesforce failed as a whole (`failedWhole`), e.g. for a column it does not know, with
 * its `errorMessage` (the only place that says why: there are no per-record results). Its
 * records' job id is in the journal: the next run writes them with a new job, none twice.
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_info.htm
 */
export class BulkJobFailed extends SalesforceError {
  override name = 'BulkJobFailed';
  readonly jobId: string;
  readonly errorMessage: string | undefined;
  constructor(info: JobInfo, work: string) {
    const reason = info.errorMessage ?? 'no reason given';
    const remedy = /field|column/i.test(reason)
      ? 'A field it names is missing from the org or hidden from the connecting user: run `service-crm fields apply`, or give that user access to the field, then run the same sync again.'
      : 'Run the same sync again; if the job fails the same way, look it up in Salesforce Setup under Bulk Data Load Jobs.';
    super(
      'request_failed',
      `Salesforce failed Bulk API job ${info.id} (${work}) as a whole and wrote none of its records: "${reason}". ${remedy} Its records are left pending, and none is written twice.`,
    );
    this.jobId = info.id;
    this.errorMessage = info.errorMessage;
  }
}

/**
 * Polls until the job is JobComplete, Failed or Aborted, waiting `initialDelayMs` first and
 * twice as long each time after (up to `maxDelayMs`).
 */
export async function waitForJob(
  connection: SalesforceConnection,
  kind: 'ingest' | 'query',
  id: string,
  polling: BulkPolling = {},
): Promise<JobInfo> {
  const { initialDelayMs = 500, maxDelayMs = 10_000, timeoutMs = 30 * 60_000 } = polling;
  const deadline = Date.now() + timeoutMs;
  for (let delay = initialDelayMs; ; delay = Math.min(maxDelayMs, delay * 2)) {
    await sleep(delay);
    const info = await checkJob(connection, kind, id);
    if (info.state === 'JobComplete' || info.state === 'Failed' || info.state === 'Aborted')
      return info;
    if (info.state === 'Open') {
      throw new SalesforceError(
        'request_failed',
        `Bulk job ${id} is still Open: its upload never completed`,
      );
    }
    if (Date.now() > deadline) throw new BulkJobTimeout(id, info.state, timeoutMs);
  }
}

export type ResultKind = 'successfulResults' | 'failedResults' | 'unprocessedrecords';

/** One of an ingest job's result files, as rows keyed by column (every value a string). */
export async function ingestResults(
  connection: SalesforceConnection,
  id: string,
  kind: ResultKind,
): Promise<Record<string, string>[]> {
  const job = await ingestJob(connection, id);
  const fetch = {
    successfulResults: () => job.getSuccessfulResults(),
    failedResults: () => job.getFailedResults(),
    unprocessedrecords: () => job.getUnprocessedRecords(),
  }[kind];
  const rows = await connection.call(
    `GET /jobs/ingest/${id}/${kind}`,
    'bulk:results',
    fetch,
    RESENDABLE,
  );
  return Array.isArray(rows) ? (rows as unknown as Record<string, string>[]) : [];
}

/** Creates a query job (`operation: query`) for one SOQL statement. */
export async function openQueryJob(
  connection: SalesforceConnection,
  soql: string,
  operation: 'query' | 'queryAll' = 'query',
): Promise<string> {
  const [{ QueryJobV2 }] = await jsforceBulk();
  const job = new QueryJobV2(jsforceOf(connection), {
    bodyParams: { query: soql, operation, lineEnding: 'LF' },
    pollingOptions,
  });
  const info = await connection.call(
    'POST /jobs/query',
    'bulk:query',
    () => job.open(),
    RESENDABLE,
  );
  return info.id;
}

/**
 * One page of a query job's results: the rows, and the locator of the next page (undefined
 * after the last). jsforce's `QueryJobV2.result()` cannot read a second page into its stream
 * and takes no `maxRecords`, so pages are fetched here through jsforce's HTTP layer, which
 * hands back the `Sforce-Locator` header.
 */
export async function queryResultsPage(
  connection: SalesforceConnection,
  id: string,
  options: { readonly locator?: string; readonly maxRecords: number },
): Promise<{ rows: Record<string, string>[]; locator: string | undefined }> {
  const params = new URLSearchParams({ maxRecords: String(options.maxRecords) });
  if (options.locator) params.set('locator', options.locator);
  const path = `/services/data/v${connection.apiVersion}/jobs/query/${id}/results`;
  let locator: string | undefined;
  const [, { HttpApi }] = await jsforceBulk();
  const http = new HttpApi(jsforceOf(connection), { responseType: 'text/csv' });
  http.on('response', (response: { headers: Record<string, string | undefined> }) => {
    locator = response.headers['sforce-locator'];
  });
  const rows = await connection.call(
    `GET /jobs/query/${id}/results`,
    'bulk:results',
    () =>
      http.request<Record<string, string>[]>({
        method: 'GET',
        url: `${connection.instanceUrl}${path}?${params}`,
        headers: { Accept: 'text/csv' },
      }),
    RESENDABLE,
  );
  return {
    rows: Array.isArray(rows) ? rows : [],
    locator: locator && locator !== 'null' ? locator : undefined,
  };
}
