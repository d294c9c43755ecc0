/**
 * Writes records of one object through Bulk API 2.0 ingest jobs and maps the job's result
 * files back to them, one result per record. Resumable: each record's job id is in the journal
 * before its data is uploaded, so a run that was interrupted after creating or uploading a job
 * picks that job up again (an Open one is aborted: nothing of it was processed) instead of
 * writing its records a second time.
 */
import type { CrmObject, FieldValue } from '../../model/objects.js';
import type { RecordError } from '../../rest/composite.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import type { ApplyJournal } from '../state/journal.js';
import { csvCell, rowSignature, toCsv } from './csv.js';
import {
  abortIngestJob,
  BulkJobFailed,
  type BulkPolling,
  checkJob,
  failedWhole,
  type IngestOperation,
  ingestResults,
  type JobInfo,
  openIngestJob,
  uploadAndCloseOrAbort,
  waitForJob,
} from './jobs.js';

export interface IngestRow {
  /** The step's journal key (`stepKey`). */
  readonly key: string;
  /** The record to update; none for an insert. */
  readonly id?: string;
  readonly fields: Readonly<Record<string, FieldValue>>;
}

export type IngestResult =
  /** `resumed`: written by a job of an earlier, interrupted run. */
  | { readonly status: 'written'; readonly id: string; readonly resumed: boolean }
  | { readonly status: 'failed'; readonly errors: readonly RecordError[] }
  /** Not processed (the job failed or was aborted before this record): not written. */
  | { readonly status: 'unprocessed' };

export interface IngestRequest {
  readonly object: CrmObject;
  readonly operation: IngestOperation;
  readonly rows: readonly IngestRow[];
  readonly journal: ApplyJournal;
  readonly polling?: BulkPolling;
  /** Called before each new job (e.g. the API-limit check). */
  readonly beforeJob?: () => Promise<void>;
  /**
   * The rows of a journaled job Salesforce no longer knows (`NOT_FOUND`), which it may have
   * written: answers the ids of those already in the org, by row key, so they are not written
   * again. Without it they are all written again (harmless for updates, not for inserts).
   */
  readonly findWritten?: (rows: readonly IngestRow[]) => Promise<ReadonlyMap<string, string>>;
}

/** Appends `item` to the list kept under `key`. */
export function append<K, V>(map: Map<K, V[]>, key: K, item: V): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

/** The journal key holding the id of the job a step's record was uploaded in. */
export const bulkJobKey = (key: string) => `bulk-job:${key}`;

/**
 * Salesforce takes at most 150 MB of base64 per upload, so at most 100 MB of CSV, counted in
 * the bytes sent (UTF-8), not in characters.
 */
const MAX_JOB_BYTES = 100_000_000;

/**
 * `sf__Error` is `CODE:message:fields --` (fields comma-separated, often empty).
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_failed_results.htm
 */
export function parseBulkError(text: string): RecordError {
  const trimmed = text.replace(/\s*--\s*$/, '');
  const colon = trimmed.indexOf(':');
  const statusCode = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const rest = colon < 0 ? '' : trimmed.slice(colon + 1);
  const withFields = /^(.*):([\w,]*)$/s.exec(rest);
  return {
    statusCode,
    message: (withFields ? withFields[1] : rest)?.trim() ?? '',
    fields: (withFields?.[2] ?? '').split(',').filter(Boolean),
  };
}

const cellsOf = (row: IngestRow): Record<string, string> =>
  Object.fromEntries(Object.entries(row.fields).map(([name, value]) => [name, csvCell(value)]));

/** Runs the ingest, resuming the jobs the journal names; one result per row key. */
export async function ingest(
  connection: SalesforceConnection,
  request: IngestRequest,
): Promise<Map<string, IngestResult>> {
  const results = new Map<string, IngestResult>();
  const byJob = new Map<string, IngestRow[]>();
  const fresh: IngestRow[] = [];
  for (const row of request.rows) {
    const job = request.journal.get(bulkJobKey(row.key));
    if (job === undefined) fresh.push(row);
    else append(byJob, job, row);
  }
  for (const [id, rows] of byJob) {
    let info: JobInfo;
    try {
      info = await checkJob(connection, 'ingest', id);
    } catch (error) {
      // A job Salesforce no longer keeps: the records it wrote are found, the rest written again.
      if (error instanceof SalesforceError && error.errorCode === 'NOT_FOUND') {
        const found = (await request.findWritten?.(rows)) ?? new Map<string, string>();
        for (const row of rows) {
          const id = found.get(row.key);
          if (id === undefined) fresh.push(row);
          else results.set(row.key, { status: 'written', id, resumed: true });
        }
        continue;
      }
      throw error;
    }
    if (info.state === 'Open') {
      await abortIngestJob(connection, id);
      fresh.push(...rows);
      continue;
    }
    if (info.state === 'UploadComplete' || info.state === 'InProgress') {
      info = await waitForJob(connection, 'ingest', id, request.polling);
    }
    // A job failed as a whole wrote nothing: its records go to a new job.
    if (failedWhole(info)) {
      fresh.push(...rows);
      continue;
    }
    await collect(connection, request.operation, info, rows, results, true);
  }
  for (const rows of jobsOf(request.operation, byParent(fresh))) {
    const id = await startJob(connection, request, rows);
    const info = await waitForJob(connection, 'ingest', id, request.polling);
    if (failedWhole(info))
      throw new BulkJobFailed(
        info,
        `${request.operation} of ${rows.length} ${request.object} records`,
      );
    await collect(connection, request.operation, info, rows, results, false);
  }
  return results;
}

/**
 * Rows grouped by their parent (`AccountId`, then `ParentId`), in a stable order: a job's
 * batches run in parallel, and rows of one parent in two of them lock the same Account.
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/datafiles_organize_data.htm
 */
export function byParent(rows: readonly IngestRow[]): IngestRow[] {
  const parent = (row: IngestRow) => String(row.fields.AccountId ?? row.fields.ParentId ?? '');
  return [...rows].sort((a, b) => parent(a).localeCompare(parent(b)));
}

/** Jobs tried for one set of rows whose upload or close keeps losing its answer. */
const JOB_ATTEMPTS = 3;

/** A new job holding `rows`, uploaded and closed; its id is journaled before the upload. */
async function startJob(
  connection: SalesforceConnection,
  request: IngestRequest,
  rows: readonly IngestRow[],
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await request.beforeJob?.();
    const id = await openIngestJob(connection, request.object, request.operation);
    await request.journal.record(Object.fromEntries(rows.map((r) => [bulkJobKey(r.key), id])));
    if (await uploadAndCloseOrAbort(connection, id, csvOf(request.operation, rows))) return id;
    if (attempt >= JOB_ATTEMPTS) {
      throw new SalesforceError(
        'network',
        `Bulk API ${request.operation} of ${rows.length} ${request.object} records: the upload of ${attempt} jobs lost its answer; each was aborted, nothing of them written`,
      );
    }
  }
}

function columnsOf(operation: IngestOperation, rows: readonly IngestRow[]): string[] {
  const names = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row.fields)) names.add(name);
  return [...(operation === 'update' ? ['Id'] : []), ...[...names].sort()];
}

function csvOf(operation: IngestOperation, rows: readonly IngestRow[]): string {
  return toCsv(
    columnsOf(operation, rows),
    rows.map((r) => (operation === 'update' ? { Id: r.id ?? '', ...r.fields } : r.fields)),
  );
}

/** Splits rows into jobs whose CSV stays under the upload limit (`max`, in UTF-8 bytes). */
export function jobsOf(
  operation: IngestOperation,
  rows: readonly IngestRow[],
  max = MAX_JOB_BYTES,
): IngestRow[][] {
  const jobs: IngestRow[][] = [];
  let job: IngestRow[] = [];
  let size = 0;
  for (const row of rows) {
    const length = Buffer.byteLength(csvOf(operation, [row]));
    if (job.length > 0 && size + length > max) {
      jobs.push(job);
      job = [];
      size = 0;
    }
    job.push(row);
    size += length;
  }
  if (job.length > 0) jobs.push(job);
  return jobs;
}

/**
 * Maps a finished job's result files to its rows: by `Id` for updates, by the uploaded values
 * for inserts (result files are in no particular order). A clean update job (JobComplete,
 * every record processed, none failed) needs no result file at all.
 */
async function collect(
  connection: SalesforceConnection,
  operation: IngestOperation,
  info: JobInfo,
  rows: readonly IngestRow[],
  results: Map<string, IngestResult>,
  resumed: boolean,
): Promise<void> {
  const clean =
    info.state === 'JobComplete' &&
    (info.numberRecordsFailed ?? 0) === 0 &&
    info.numberRecordsProcessed === rows.length;
  if (operation === 'update' && clean) {
    for (const row of rows) results.set(row.key, { status: 'written', id: row.id ?? '', resumed });
    return;
  }
  const identify = (cells: Record<string, string>) =>
    operation === 'update' ? `Id:${cells.Id || cells.sf__Id}` : rowSignature(cells);
  const waiting = new Map<string, IngestRow[]>();
  for (const row of rows) {
    const identity = operation === 'update' ? `Id:${row.id}` : rowSignature(cellsOf(row));
    append(waiting, identity, row);
  }
  const take = (cells: Record<string, string>) => waiting.get(identify(cells))?.shift();
  for (const cells of await ingestResults(connection, info.id, 'successfulResults')) {
    const row = take(cells);
    if (row) results.set(row.key, { status: 'written', id: cells.sf__Id || row.id || '', resumed });
  }
  if ((info.numberRecordsFailed ?? 1) > 0) {
    for (const cells of await ingestResults(connection, info.id, 'failedResults')) {
      const row = take(cells);
      if (row)
        results.set(row.key, { status: 'failed', errors: [parseBulkError(cells.sf__Error ?? '')] });
    }
  }
  // A failed or aborted job lists what it never reached; those rows are left to write again.
  if (info.state !== 'JobComplete') {
    for (const cells of await ingestResults(connection, info.id, 'unprocessedrecords')) {
      const row = take(cells);
      if (row) results.set(row.key, { status: 'unprocessed' });
    }
  }
  // A row in no result file was not reported as written either.
  for (const row of rows)
    if (!results.has(row.key)) results.set(row.key, { status: 'unprocessed' });
}
