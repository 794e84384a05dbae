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
}

export interface JobTables {
  jobs: JobRow;
}
