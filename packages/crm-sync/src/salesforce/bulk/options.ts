/**
 * When a sync uses Bulk API 2.0, and how: the thresholds from which writes and reads go
 * through jobs, the page size of query results and the polling of jobs.
 */
import type { BulkPolling } from './jobs.js';

/** When `applyPlan` and `readCrm` switch to Bulk API 2.0 jobs, and how a job is polled. */
export interface BulkOptions {
  /** Updates (or creates) of one object from which they go through an ingest job (default 2,000). */
  readonly writeThreshold?: number;
  /** Records a query returns from which they are read through a query job (default 10,000). */
  readonly readThreshold?: number;
  /** Rows per page of query results (`maxRecords`, default 50,000). */
  readonly pageSize?: number;
  /** How jobs are polled (backoff from 500 ms to 10 s by default). */
  readonly polling?: BulkPolling;
}

export const DEFAULT_WRITE_THRESHOLD = 2_000;
export const DEFAULT_READ_THRESHOLD = 10_000;
export const DEFAULT_PAGE_SIZE = 50_000;
