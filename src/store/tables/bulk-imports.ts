/** STAGING while its upload is read; then PENDING, PROCESSING, COMPLETED or FAILED. */
export type BulkImportStatus = 'STAGING' | 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

export interface BulkImportJobRow {
  id: string;
  platform_id: string;
  environment: string;
  status: BulkImportStatus;
  total: number;
  processed: number;
  successful: number;
  failed: number;
  /** The first batch not yet imported: a resumed import starts there, so no row is imported twice. */
  next_batch: number;
  batch_count: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** Up to a batch of the upload's rows, as a JSON array of [row number, record]. */
export interface BulkImportBatchRow {
  job_id: string;
  seq: number;
  rows: string;
}

/** One failed row's error entry (JSON), by row number. */
export interface BulkImportErrorRow {
  job_id: string;
  row_number: number;
  body: string;
}

export interface BulkImportTables {
  bulk_import_jobs: BulkImportJobRow;
  bulk_import_batches: BulkImportBatchRow;
  bulk_import_errors: BulkImportErrorRow;
}
