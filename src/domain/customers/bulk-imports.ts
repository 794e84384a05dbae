import type { PlatformClock } from '../platform/platform-clock.js';
import { CsvError, parse } from 'csv-parse';
import * as repo from '../../store/bulk-imports-repo.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import type { Store } from '../../store/store.js';
import type { BulkImportJobRow } from '../../store/tables/bulk-imports.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import type { Environment } from '../platform/tokens.js';
import { ConflictError, DomainError, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import { columnOf, customerOfRow, type StagedRow } from './bulk-import-rows.js';
import { customerRuleErrors, type CustomerService, type NewCustomer } from './customers.js';

/** The job that imports the next batch of an import's rows (one job per batch, each enqueued by the one before). */
export const BULK_IMPORT_JOB = 'customer.bulk_import';

export interface BulkImportJob {
  importId: string;
}

export interface BulkImportErrorEntry {
  correlationId: string;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface BulkImport {
  id: string;
  status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  progress: { total: number; processed: number; successful: number; failed: number };
  errors: BulkImportErrorEntry[];
  completedAt?: string;
}

/** An upload read into batches, not yet accepted: `unreadable` when the CSV itself could not be parsed. */
export interface StagedImport {
  importId: string;
  unreadable?: { row: number; message: string };
}

/** The schema's check of a POST /customers body (every failure, one per field), given by the wiring so the rows are checked by the same schema. */
export type CustomerBodyCheck = (input: NewCustomer) => FieldError[];

function entry(row: number, platformCustomerId: unknown, code: string, message: string, details: Record<string, unknown> = {}): { row_number: number; body: string } {
  const correlationId = typeof platformCustomerId === 'string' && platformCustomerId !== '' ? platformCustomerId : `row_${row}`;
  return { row_number: row, body: JSON.stringify({ correlationId, code, message, details: { row, ...details } }) };
}

/** CSV uploads of customers, staged in the database in batches and imported by the worker, batch by batch, with progress. */
export class BulkImportService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly customers: CustomerService,
    private readonly checkBody: CustomerBodyCheck,
    private readonly batchRows: number,
  ) {}

  /** Every timestamp this service writes. */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /**
   * Reads a CSV stream (BOM, quoted fields, CRLF) into batches of rows stored with a STAGING
   * import, one short transaction per batch: the upload is never held whole, and any process
   * can import it. A CSV that cannot be parsed ends the staging with `unreadable`.
   */
  async stage(platformId: string, environment: Environment, csv: AsyncIterable<Buffer> & NodeJS.ReadableStream): Promise<StagedImport> {
    // The parser takes the stream before anything is awaited: a stream that ends or fails meanwhile still reaches it.
    const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, max_record_size: 64 * 1024 });
    csv.on('error', (err) => parser.destroy(err));
    // Kept on the parser until the loop below reads it (no listener would make it an uncaught error).
    parser.on('error', () => undefined);
    csv.pipe(parser);
    const importId = newId('Job');
    const now = await this.now(platformId);
    await repo.insertBulkImport(this.store.db, {
      id: importId, platform_id: platformId, environment, status: 'STAGING', total: 0, processed: 0, successful: 0, failed: 0, next_batch: 0, batch_count: 0, created_at: now, updated_at: now, completed_at: null,
    });
    let header: string[] | undefined;
    let rows = 0;
    let batch: StagedRow[] = [];
    let batches = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await repo.insertBulkImportBatch(this.store.db, importId, batches++, JSON.stringify(batch));
      batch = [];
    };
    try {
      for await (const record of parser as AsyncIterable<string[]>) {
        if (!header) {
          header = record.map((c) => c.trim());
          continue;
        }
        rows++;
        const cells = record.length === header.length ? Object.fromEntries(header.map((h, i) => [h, record[i]!]).filter(([, v]) => v !== '')) : null;
        batch.push([rows, cells]);
        if (batch.length >= this.batchRows) await flush();
      }
      await flush();
    } catch (err) {
      if (err instanceof CsvError) {
        // The rest of the upload is read to nowhere, so the request's other parts can still be read.
        csv.unpipe(parser);
        csv.resume();
        await repo.updateBulkImport(this.store.db, importId, { total: rows, batch_count: batches });
        return { importId, unreadable: { row: rows + 1, message: (err as Error).message } };
      }
      await this.discard(importId);
      throw err;
    }
    await repo.updateBulkImport(this.store.db, importId, { total: rows, batch_count: batches });
    return { importId };
  }

  /**
   * Accepts a staged upload in the request's unit of work: PENDING with its first batch's job, or
   * at once COMPLETED (no rows) or FAILED (an unreadable CSV), with its webhook.
   */
  async accept(platformId: string, staged: StagedImport, within?: UnitOfWork): Promise<BulkImport> {
    return this.store.transaction(async (uow) => {
      const row = (await repo.lockBulkImport(uow, staged.importId))!;
      const now = await this.now(platformId, uow);
      if (staged.unreadable) {
        const { row: at, message } = staged.unreadable;
        await repo.insertBulkImportErrors(uow.db, row.id, [entry(at, undefined, 'INVALID_CSV_FORMAT', `The CSV could not be read from row ${at}: ${message}`)]);
        return finish(uow, { ...row, processed: row.total, failed: row.total }, 'FAILED', now);
      }
      if (row.total === 0) return finish(uow, row, 'COMPLETED', now);
      await repo.moveBulkImport(uow.db, row.id, 'STAGING', { status: 'PENDING', updated_at: now });
      await this.enqueueBatch(uow, row.id, now);
      return render({ ...row, status: 'PENDING' }, []);
    }, within);
  }

  /** Drops a staged upload that was not accepted (the request failed, or was a replay). */
  async discard(importId: string, within?: UnitOfWork): Promise<void> {
    await repo.deleteBulkImport((within ?? this.store).db, importId);
  }

  async get(platformId: string, id: string): Promise<BulkImport> {
    const row = await repo.findBulkImport(this.store.db, platformId, id);
    if (!row || row.status === 'STAGING') throw new NotFoundError('BulkImportJob', id);
    return render(row, await repo.bulkImportErrors(this.store.db, id));
  }

  /**
   * The worker's run of one batch, in its commit: every row checked in memory like POST /customers
   * (the same schema and rules), the good ones created together through the customer service's
   * set-based create (the same uniqueness rules, KYC at creation and webhooks, one query for the
   * clashes of the whole batch), the progress advanced, the batch dropped, and the next batch's job
   * enqueued, or the import finished with its webhook. A batch already imported (a resumed run)
   * does nothing.
   */
  async importBatch(uow: UnitOfWork, job: BulkImportJob): Promise<void> {
    const row = await repo.lockBulkImport(uow, job.importId);
    if (!row || (row.status !== 'PENDING' && row.status !== 'PROCESSING')) return;
    const seq = row.next_batch;
    const staged = JSON.parse((await repo.findBulkImportBatch(uow.db, row.id, seq)) ?? '[]') as StagedRow[];
    const errors: { row_number: number; body: string }[] = [];
    const valid: { n: number; input: NewCustomer }[] = [];
    for (const [n, cells] of staged) {
      const checked = this.checkRow(n, cells);
      if ('input' in checked) valid.push({ n, input: checked.input });
      else errors.push(checked);
    }
    const outcomes = await this.customers.createMany(uow, row.platform_id, row.environment as Environment, valid.map((v) => v.input));
    let successful = 0;
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome instanceof DomainError) errors.push(refusal(valid[i]!.n, valid[i]!.input, outcome));
      else successful++;
    }
    errors.sort((a, b) => a.row_number - b.row_number);
    await repo.insertBulkImportErrors(uow.db, row.id, errors);
    await repo.deleteBulkImportBatch(uow.db, row.id, seq);
    const now = await this.now(row.platform_id, uow);
    const next: BulkImportJobRow = {
      ...row,
      status: 'PROCESSING',
      next_batch: seq + 1,
      processed: row.processed + staged.length,
      successful: row.successful + successful,
      failed: row.failed + errors.length,
      updated_at: now,
    };
    if (next.next_batch < row.batch_count) {
      await repo.updateBulkImport(uow.db, row.id, { status: next.status, next_batch: next.next_batch, processed: next.processed, successful: next.successful, failed: next.failed, updated_at: now });
      await this.enqueueBatch(uow, row.id, now);
      return;
    }
    // Every row refused: the import failed; otherwise it completed, with the refused rows in errors.
    await finish(uow, next, next.successful === 0 ? 'FAILED' : 'COMPLETED', now);
  }

  /** A row as the POST /customers request it stands for, or its error entry when the schema or the rules refuse it. */
  private checkRow(n: number, cells: Record<string, string> | null): { input: NewCustomer } | { row_number: number; body: string } {
    if (cells === null) return entry(n, undefined, 'INVALID_CSV_FORMAT', `Row ${n} does not have one cell per header column`);
    const { input, unknown } = customerOfRow(cells);
    const seen = new Set<string>();
    const fieldErrors = [...unknown, ...this.checkBody(input), ...customerRuleErrors(input as Record<string, unknown>)]
      .map((e) => ({ ...e, field: columnOf(e.field) }))
      .filter((e) => !seen.has(e.field) && seen.add(e.field));
    if (fieldErrors.length > 0) return entry(n, input.platformCustomerId, 'INVALID_INPUT', `Row ${n}: ${fieldErrors.map((e) => e.field).join(', ')} invalid`, { errors: fieldErrors });
    return { input };
  }

  private async enqueueBatch(uow: UnitOfWork, importId: string, now: number): Promise<void> {
    const payload: BulkImportJob = { importId };
    await enqueueJob(uow, { id: newId('Job'), kind: BULK_IMPORT_JOB, payload, queueKey: importId }, now);
  }
}

/** The error entry of a row the customer service refused, as POST /customers would have answered it. */
function refusal(n: number, input: NewCustomer, err: DomainError): { row_number: number; body: string } {
  if (err instanceof ConflictError) {
    return entry(n, input.platformCustomerId, err.clash === 'umaAddress' ? 'UMA_ADDRESS_EXISTS' : 'CONFLICT', err.message, { errors: [{ field: err.clash, message: err.message }] });
  }
  if (err instanceof ValidationError) return entry(n, input.platformCustomerId, 'INVALID_INPUT', err.message, { errors: err.errors.map((e) => ({ ...e, field: columnOf(e.field) })) });
  return entry(n, input.platformCustomerId, 'INVALID_INPUT', err.message);
}

/** Ends the import and records BULK_UPLOAD.COMPLETED or BULK_UPLOAD.FAILED with it as it ends. */
async function finish(uow: UnitOfWork, row: BulkImportJobRow, status: 'COMPLETED' | 'FAILED', now: number): Promise<BulkImport> {
  const ended: BulkImportJobRow = { ...row, status, updated_at: now, completed_at: now };
  const { id: _id, platform_id: _p, ...changes } = ended;
  await repo.updateBulkImport(uow.db, row.id, changes);
  const rendered = render(ended, await repo.bulkImportErrors(uow.db, row.id));
  await recordWebhookEvent(uow, { platformId: row.platform_id, type: `BULK_UPLOAD.${status}`, fields: { data: rendered } }, now);
  return rendered;
}

function render(row: BulkImportJobRow, errors: string[]): BulkImport {
  const job: BulkImport = {
    id: row.id,
    status: row.status === 'STAGING' ? 'PENDING' : row.status,
    progress: { total: row.total, processed: row.processed, successful: row.successful, failed: row.failed },
    errors: errors.map((e) => JSON.parse(e) as BulkImportErrorEntry),
  };
  if (row.completed_at !== null) job.completedAt = new Date(row.completed_at).toISOString();
  return job;
}

/**
 * The import whose batch job failed for good (a run that kept throwing): FAILED, with an entry
 * saying which rows were not reached, and BULK_UPLOAD.FAILED, so it does not stay PROCESSING;
 * stamped on the import's platform's clock.
 */
export async function abandonBulkImport(uow: UnitOfWork, job: BulkImportJob, clock: Pick<PlatformClock, 'now'>): Promise<void> {
  const row = await repo.lockBulkImport(uow, job.importId);
  if (!row || (row.status !== 'PENDING' && row.status !== 'PROCESSING')) return;
  const now = await clock.now(row.platform_id, uow);
  const first = row.processed + 1;
  await repo.insertBulkImportErrors(uow.db, row.id, [entry(first, undefined, 'INTERNAL_ERROR', `The import stopped at row ${first}: rows ${first} to ${row.total} were not imported`)]);
  await finish(uow, { ...row, failed: row.failed + (row.total - row.processed), processed: row.total }, 'FAILED', now);
}
