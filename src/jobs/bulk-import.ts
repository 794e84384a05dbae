import { abandonBulkImport, BULK_IMPORT_JOB, type BulkImportJob } from '../domain/customers/bulk-imports.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Imports one batch of a bulk customer import in the worker's commit; the batch enqueues the next, so an import resumes where its last commit left it. */
export const bulkImportHandler: JobHandler = {
  kind: BULK_IMPORT_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as BulkImportJob;
    return { outcome: 'done', write: (uow) => services.bulkImports.importBatch(uow, payload) };
  },
  gaveUp: (uow, job, _now, services) => abandonBulkImport(uow, JSON.parse(job.payload) as BulkImportJob, services.clock),
};
