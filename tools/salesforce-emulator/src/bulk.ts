// Bulk API 2.0 on the emulated org: ingest jobs (create, upload CSV, UploadComplete or
// Aborted, job info, successful/failed/unprocessed results) and query jobs (create, job info,
// paged CSV results).
// Time passes one API request at a time: a closed job is processed after `pollsBeforeDone`
// further requests (whoever sends them), so a test decides how long a job takes, whether it
// fails part-way and which records fail; results come back in an order unlike the upload's.
// https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/bulk_api_2_0.htm
import { randomBytes } from 'node:crypto';
import { readCsv, writeCsv } from './bulk-csv.ts';
import type { Org, SfRecord } from './org.ts';
import { runSoql, SoqlError } from './soql.ts';
import { TRIGGER_CHUNK } from './throwing-trigger.ts';

/** What the server lends the Bulk API: the REST create and update, with their checks. */
export interface RecordWriter {
  create(object: string, values: Record<string, unknown>): [number, unknown];
  update(
    object: string,
    id: string,
    values: Record<string, unknown>,
  ): { statusCode: string; message: string } | undefined;
  /** The error of a trigger throwing on records processed together (throwing-trigger.ts). */
  chunkError(
    object: string,
    event: 'BeforeInsert' | 'BeforeUpdate',
    rows: Record<string, unknown>[],
  ): { statusCode: string; message: string } | undefined;
}

/** An answer of the Bulk API 2.0 resources: status, JSON or CSV body, headers. */
export interface BulkAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A Bulk API 2.0 job's state, as the job info resource shows it. */
export type JobState =
  | 'Open'
  | 'UploadComplete'
  | 'InProgress'
  | 'JobComplete'
  | 'Failed'
  | 'Aborted';

/** A Bulk API 2.0 ingest or query job as the org holds it. */
export interface Job {
  id: string;
  kind: 'ingest' | 'query';
  operation: string;
  object: string;
  state: JobState;
  createdDate: string;
  polls: number;
  errorMessage?: string;
  /** Ingest: the uploaded header and rows, and each row's result once processed. */
  header: string[];
  rows: Record<string, string>[];
  results: ({ id: string; created: boolean } | { id: string; error: string } | undefined)[];
  /** Query: the selected columns and the records. */
  columns: string[];
  records: SfRecord[];
}

const CSV = { 'content-type': 'text/csv' };

const error = (status: number, errorCode: string, message: string): BulkAnswer => ({
  status,
  body: [{ errorCode, message }],
});

/** The org's Bulk API 2.0 jobs (`emulator.bulk`), with knobs for slow and failing jobs. */
export class BulkApi {
  readonly jobs = new Map<string, Job>();
  /** API requests after its close during which a job is InProgress (default 0). */
  pollsBeforeDone = 0;
  /** The next ingest job stops after this many rows and ends `Failed` with this message. */
  failNextJob: { after: number; message: string } | undefined;
  /** Rows per page of query results when the client gives no `maxRecords`. */
  resultsPageSize: number;
  private readonly org: Org;
  private readonly writer: RecordWriter;

  constructor(org: Org, writer: RecordWriter, resultsPageSize = 50_000) {
    this.org = org;
    this.writer = writer;
    this.resultsPageSize = resultsPageSize;
  }

  /** One API request's worth of time: closed jobs move on, and are processed in turn. */
  tick(): void {
    for (const job of this.jobs.values()) {
      if (job.state !== 'UploadComplete' && job.state !== 'InProgress') continue;
      job.polls += 1;
      if (job.polls > this.pollsBeforeDone) this.process(job);
      else job.state = 'InProgress';
    }
  }

  /** The ingest jobs created so far, by operation (the suite checks none deletes). */
  operations(): string[] {
    return [...this.jobs.values()].filter((j) => j.kind === 'ingest').map((j) => j.operation);
  }

  /** Answers a `/services/data/vXX.X` request that is the Bulk API's, or undefined. */
  handle(
    method: string,
    rest: string,
    query: URLSearchParams,
    body: string,
  ): BulkAnswer | undefined {
    const match = /^\/jobs\/(ingest|query)\/?([\w]+)?(\/[\w]+)?\/?$/.exec(rest);
    if (!match) return undefined;
    const kind = match[1] as Job['kind'];
    const job = match[2] ? this.jobs.get(match[2]) : undefined;
    const part = match[3];
    if (!match[2]) return method === 'POST' ? this.create(kind, body) : undefined;
    // An unknown job id: 404 NOT_FOUND, as for any missing resource.
    // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
    if (!job || job.kind !== kind)
      return error(404, 'NOT_FOUND', 'The requested resource does not exist');
    if (method === 'GET' && !part) return { status: 200, body: this.info(job) };
    if (method === 'PATCH' && !part) return this.changeState(job, body);
    if (method === 'PUT' && part === '/batches' && kind === 'ingest') return this.upload(job, body);
    if (method === 'GET' && kind === 'ingest' && part) return this.ingestResults(job, part);
    if (method === 'GET' && kind === 'query' && part === '/results')
      return this.queryResults(job, query);
    return undefined;
  }

  /**
   * Create a job: `{ object, operation }` for ingest, `{ operation: query|queryAll, query }`
   * for a query; answers the job info in state Open (ingest) or UploadComplete (query).
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/create_job.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/query_create_job.htm
   */
  private create(kind: Job['kind'], body: string): BulkAnswer {
    const request = JSON.parse(body || '{}') as Record<string, string>;
    const id = `750${randomBytes(8).toString('hex').slice(0, 12).toUpperCase()}AAA`;
    const job: Job = {
      id,
      kind,
      operation: request.operation ?? '',
      object: request.object ?? '',
      state: kind === 'ingest' ? 'Open' : 'UploadComplete',
      createdDate: this.org.now(),
      polls: 0,
      header: [],
      rows: [],
      results: [],
      columns: [],
      records: [],
    };
    if (kind === 'ingest') {
      const operations = ['insert', 'update', 'upsert', 'delete', 'hardDelete'];
      if (!operations.includes(job.operation))
        return error(400, 'INVALIDJOB', `InvalidJob : Invalid operation: ${job.operation}`);
      if (!this.org.records.has(job.object))
        return error(400, 'INVALIDJOB', `InvalidJob : Unable to find object: ${job.object}`);
    } else {
      if (job.operation !== 'query' && job.operation !== 'queryAll')
        return error(400, 'INVALIDJOB', `InvalidJob : Invalid operation: ${job.operation}`);
      const soql = request.query ?? '';
      // Parent-to-child subqueries, aggregates and OFFSET are not supported by query jobs.
      // https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/queries.htm
      if (/\(\s*SELECT\s/i.test(soql) || /\bCOUNT\s*\(|\bOFFSET\b|\bGROUP\s+BY\b/i.test(soql))
        return error(
          400,
          'INVALIDJOB',
          `InvalidJob : The query is not supported by Bulk API 2.0: ${soql}`,
        );
      try {
        // queryAll also returns records in the Recycle Bin (IsDeleted true).
        // https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/query_create_job.htm
        job.records = runSoql(this.org, soql, false, job.operation === 'queryAll');
      } catch (thrown) {
        if (!(thrown instanceof SoqlError)) throw thrown;
        return error(400, thrown.errorCode, thrown.message);
      }
      job.object = /\bFROM\s+(\w+)/i.exec(soql)?.[1] ?? '';
      job.columns = (/^\s*SELECT\s+(.*?)\s+FROM\s/is.exec(soql)?.[1] ?? '')
        .split(',')
        .map((c) => c.trim());
    }
    this.jobs.set(id, job);
    return { status: 200, body: this.info(job) };
  }

  /**
   * Job info, as Get Information About an Ingest Job / a Query Job shows it: a closed job is
   * UploadComplete, then InProgress, then JobComplete or Failed (with `errorMessage`).
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_info.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/query_get_one_job.htm
   */
  private info(job: Job): Record<string, unknown> {
    const processed =
      job.kind === 'ingest' ? job.results.filter(Boolean).length : job.records.length;
    return {
      id: job.id,
      operation: job.operation,
      object: job.object,
      createdById: this.org.userId,
      createdDate: job.createdDate,
      systemModstamp: job.createdDate,
      state: job.state,
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: 59.0,
      jobType: job.kind === 'ingest' ? 'V2Ingest' : 'V2Query',
      lineEnding: 'LF',
      columnDelimiter: 'COMMA',
      ...(job.kind === 'ingest'
        ? {
            contentUrl: `services/data/v59.0/jobs/ingest/${job.id}/batches`,
            numberRecordsFailed: job.results.filter((r) => r && 'error' in r).length,
          }
        : {}),
      numberRecordsProcessed: job.state === 'JobComplete' || job.state === 'Failed' ? processed : 0,
      retries: 0,
      totalProcessingTime: 0,
      ...(job.errorMessage ? { errorMessage: job.errorMessage } : {}),
    };
  }

  /**
   * Upload job data: CSV to an Open job, answered 201 with no body.
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/upload_job_data.htm
   */
  private upload(job: Job, body: string): BulkAnswer {
    if (job.state !== 'Open')
      return error(409, 'INVALIDJOBSTATE', `Job ${job.id} is not Open; it is ${job.state}`);
    const { header, rows } = readCsv(body);
    if (job.header.length > 0 && job.header.join() !== header.join())
      return error(400, 'INVALIDJOB', 'InvalidBatch : the header differs from the first upload');
    job.header = header;
    job.rows.push(...rows);
    return { status: 201, body: undefined };
  }

  /**
   * Close or abort a job: `{ state: UploadComplete }` on an Open job starts processing;
   * `{ state: Aborted }` stops a job that has not finished (rows not processed stay so).
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/close_job.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/abort_job.htm
   */
  private changeState(job: Job, body: string): BulkAnswer {
    const state = (JSON.parse(body || '{}') as { state?: string }).state;
    const finished = ['JobComplete', 'Failed', 'Aborted'].includes(job.state);
    if (state === 'UploadComplete' && job.kind === 'ingest' && job.state === 'Open') {
      job.state = 'UploadComplete';
    } else if (state === 'Aborted' && !finished) {
      job.state = 'Aborted';
    } else {
      return error(
        400,
        'INVALIDJOBSTATE',
        `Cannot change the state of job ${job.id} from ${job.state} to ${state}`,
      );
    }
    return { status: 200, body: this.info(job) };
  }

  private process(job: Job): void {
    if (job.kind === 'query') {
      job.state = 'JobComplete';
      return;
    }
    job.state = 'InProgress';
    const failure = this.failNextJob;
    this.failNextJob = undefined;
    // A header column the object lacks, or the user cannot see, fails the whole job: state
    // Failed, nothing processed, the column named in `errorMessage` (no per-record results).
    // https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_info.htm
    // https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/bulk_api_2_0_errors.htm
    const unknown = job.header.find(
      (name) => name !== 'Id' && this.org.access(job.object, name) === 'none',
    );
    if (unknown !== undefined) {
      job.state = 'Failed';
      job.errorMessage = `InvalidBatch : Field name not found : ${unknown}`;
      return;
    }
    let thrown: { statusCode: string; message: string } | undefined;
    for (const [index, row] of job.rows.entries()) {
      if (failure && index >= failure.after) {
        // A failed job keeps what it processed; the rest is unprocessed.
        // https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_unprocessed_results.htm
        job.state = 'Failed';
        job.errorMessage = failure.message;
        return;
      }
      if (index % TRIGGER_CHUNK === 0) thrown = this.chunkError(job, index);
      job.results[index] = thrown
        ? { id: row.Id ?? '', error: `${thrown.statusCode}:${thrown.message}:--` }
        : this.processRow(job, row);
    }
    job.state = 'JobComplete';
  }

  /** The trigger's error for the chunk of 200 rows from `start` (empty cells: unchanged). */
  private chunkError(job: Job, start: number) {
    const rows = job.rows
      .slice(start, start + TRIGGER_CHUNK)
      .map((row) => Object.fromEntries(Object.entries(row).filter(([, text]) => text !== '')));
    const event = job.operation === 'insert' ? 'BeforeInsert' : 'BeforeUpdate';
    return this.writer.chunkError(job.object, event, rows);
  }

  /**
   * One row as the REST create/update would do it. In the CSV an empty value leaves the field
   * as it is and `#N/A` sets it to null.
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/datafiles_prepare_csv.htm
   */
  private processRow(job: Job, row: Record<string, string>): Job['results'][number] {
    const fields = this.org.fields.get(job.object);
    const values: Record<string, unknown> = {};
    for (const [name, text] of Object.entries(row)) {
      if (name === 'Id' || text === '') continue;
      const type = fields?.get(name)?.type;
      values[name] =
        text === '#N/A'
          ? null
          : type === 'double'
            ? Number(text)
            : type === 'boolean'
              ? text.toLowerCase() === 'true'
              : text;
    }
    if (job.operation === 'insert') {
      const [status, body] = this.writer.create(job.object, values);
      if (status === 201) return { id: (body as { id: string }).id, created: true };
      const [first] = body as { errorCode: string; message: string; fields?: string[] }[];
      return {
        id: '',
        error: `${first?.errorCode}:${first?.message}:${(first?.fields ?? []).join(',')} --`,
      };
    }
    if (job.operation !== 'update') {
      return {
        id: row.Id ?? '',
        error: `INVALID_OPERATION:the emulator does not carry out ${job.operation}:--`,
      };
    }
    const id = row.Id ?? '';
    const failed = this.writer.update(job.object, id, values);
    return failed
      ? { id, error: `${failed.statusCode}:${failed.message}:--` }
      : { id, created: false };
  }

  /**
   * successfulResults (`sf__Id`, `sf__Created`), failedResults (`sf__Id`, `sf__Error`) and
   * unprocessedrecords (the uploaded columns), each with the row's uploaded values; the order
   * is not the upload's (here: reversed).
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_successful_results.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_failed_results.htm
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/get_job_unprocessed_results.htm
   */
  private ingestResults(job: Job, part: string): BulkAnswer | undefined {
    const rows = job.rows.map((row, i) => ({ row, result: job.results[i] })).reverse();
    if (part === '/successfulResults') {
      const ok = rows.flatMap(({ row, result }) =>
        result && 'created' in result
          ? [{ sf__Id: result.id, sf__Created: String(result.created), ...row }]
          : [],
      );
      return {
        status: 200,
        body: writeCsv(['sf__Id', 'sf__Created', ...job.header], ok),
        headers: CSV,
      };
    }
    if (part === '/failedResults') {
      const failed = rows.flatMap(({ row, result }) =>
        result && 'error' in result ? [{ sf__Id: result.id, sf__Error: result.error, ...row }] : [],
      );
      return {
        status: 200,
        body: writeCsv(['sf__Id', 'sf__Error', ...job.header], failed),
        headers: CSV,
      };
    }
    if (part === '/unprocessedrecords') {
      const left = rows.flatMap(({ row, result }) => (result ? [] : [row]));
      return { status: 200, body: writeCsv(job.header, left), headers: CSV };
    }
    return undefined;
  }

  /**
   * Query results of a JobComplete job, at most `maxRecords` rows a page; `Sforce-Locator`
   * names the next page (`null` after the last) and `Sforce-NumberOfRecords` counts this one.
   * Null values are empty, relationship columns keep their dotted names.
   * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/query_get_job_results.htm
   */
  private queryResults(job: Job, query: URLSearchParams): BulkAnswer {
    if (job.state !== 'JobComplete') {
      return error(
        412,
        'JOB_NOT_COMPLETE',
        `can only download query results of successfully completed bulk job with status: JOB_COMPLETE. Current status: ${job.state}`,
      );
    }
    const locator = query.get('locator');
    const offset = locator ? Number(Buffer.from(locator, 'base64').toString('utf8')) : 0;
    const size = Number(query.get('maxRecords') ?? this.resultsPageSize);
    const page = job.records.slice(offset, offset + size);
    const next =
      offset + page.length < job.records.length
        ? Buffer.from(String(offset + size)).toString('base64')
        : 'null';
    const rows = page.map((record) =>
      Object.fromEntries(job.columns.map((column) => [column, cell(record, column)])),
    );
    return {
      status: 200,
      body: writeCsv(job.columns, rows),
      headers: { ...CSV, 'sforce-locator': next, 'sforce-numberofrecords': String(page.length) },
    };
  }
}

/** A record's value in CSV: null as empty, datetimes in UTC with `Z`, the rest as text. */
function cell(record: SfRecord, column: string): string {
  let value: unknown = record;
  for (const part of column.split('.')) value = (value as Record<string, unknown> | null)?.[part];
  if (value === null || value === undefined) return '';
  if (
    typeof value === 'string' &&
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d{4}|Z)$/.test(value)
  )
    return new Date(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')).toISOString();
  return String(value);
}
