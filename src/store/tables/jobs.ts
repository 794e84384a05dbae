export type JobState = 'queued' | 'done' | 'failed';

/** A unit of background work; retry and lease state live on the row. */
export interface JobRow {
  id: string;
  kind: string;
  payload: string;
  state: JobState;
  run_at: number;
  attempts: number;
  queue_key: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** A job due at a time of a platform's sandbox clock: the platform and that time (migration 019); an advance pulls `run_at` forward. */
  platform_id?: string | null;
  platform_due_at?: number | null;
}

export interface JobTables {
  jobs: JobRow;
}
