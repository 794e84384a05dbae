import { sql } from 'kysely';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BULK_IMPORT_JOB } from '../../src/domain/customers/bulk-imports.js';
import { ConflictError } from '../../src/domain/shared/errors.js';
import { bulkImportHandler } from '../../src/jobs/bulk-import.js';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { drainJobs, queuedJobs } from '../helpers/card-jobs.js';
import { multipartForm } from '../helpers/multipart.js';
import { fieldErrors } from '../helpers/owners.js';
import { describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,businessTaxId,businessIncorporatedOn';

function uploadCsv(caller: Caller, csv: string | Buffer, headers: Record<string, string> = {}) {
  const form = multipartForm([{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: csv }]);
  return caller.req('POST', '/customers/bulk/csv', form.payload, { ...form.headers, ...headers });
}

async function accepted(caller: Caller, csv: string | Buffer): Promise<string> {
  const res = await uploadCsv(caller, csv);
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json()).toEqual({ jobId: expect.stringMatching(/^Job:/), status: 'PENDING' });
  return res.json<{ jobId: string }>().jobId;
}

const jobOf = async (caller: Caller, jobId: string) => (await caller.req('GET', `/customers/bulk/jobs/${jobId}`)).json<any>();
const customersOf = async (caller: Caller) => (await caller.req('GET', '/customers?limit=100')).json<{ data: any[]; totalCount: number }>();

describeEachEngine(
  'bulk customer import: CSV rows become customers in the background, with webhooks',
  (t) => {
    let receiver: WebhookReceiver;
    let worker: Worker;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      worker = startWorker(t.services, t.app.log);
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.stop();
    });
    const ended = async (caller: Caller, jobId: string) => {
      await receiver.waitFor(() => receiver.verifiedUnique().some((d) => (d.payload?.data as { id?: string } | undefined)?.id === jobId), 20_000);
      return receiver.verifiedUnique().find((d) => (d.payload?.data as { id?: string }).id === jobId)!;
    };

    it('imports a CSV with a BOM, CRLF line ends and quoted fields (commas, quotes, line breaks), and sends a verified BULK_UPLOAD.COMPLETED', async () => {
      const caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      const csv =
        '\ufeff' +
        [
          HEADER,
          'ada@uma.example.com,ada-1,INDIVIDUAL,"Lovelace, Ada",1990-01-15,"12 ""Analytical"" Row",London,LDN,N1 9GU,GB,ada@example.com,,,',
          '$acme@uma.example.com,acme-1,BUSINESS,,,"400 Commerce Way, Suite 2",Austin,TX,78701,US,,"Acme, Inc.",12-3456789,2015-06-01',
          ',,INDIVIDUAL,Grace Hopper,,,,,,,,,,',
        ].join('\r\n') +
        '\r\n';
      const jobId = await accepted(caller, csv);
      const hook = await ended(caller, jobId);
      expect(hook.payload!.type).toBe('BULK_UPLOAD.COMPLETED');
      const job = await jobOf(caller, jobId);
      expect(job).toEqual({ id: jobId, status: 'COMPLETED', progress: { total: 3, processed: 3, successful: 3, failed: 0 }, errors: [], completedAt: expect.stringMatching(/Z$/) });
      expect(hook.payload!.data).toEqual(job);
      const { data } = await customersOf(caller);
      const ada = data.find((c) => c.platformCustomerId === 'ada-1');
      expect(ada).toMatchObject({ customerType: 'INDIVIDUAL', fullName: 'Lovelace, Ada', umaAddress: '$ada@uma.example.com', email: 'ada@example.com', address: { line1: '12 "Analytical" Row', city: 'London', postalCode: 'N1 9GU', country: 'GB' } });
      const acme = data.find((c) => c.platformCustomerId === 'acme-1');
      expect(acme).toMatchObject({ customerType: 'BUSINESS', businessInfo: { legalName: 'Acme, Inc.', taxId: '12-3456789', incorporatedOn: '2015-06-01' }, address: { line1: '400 Commerce Way, Suite 2' } });
      expect(data.filter((c) => c.fullName === 'Grace Hopper')).toHaveLength(1);
    });

    it('reports each bad row with its row number and CSV columns, imports the good ones, and completes', async () => {
      const caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      expect((await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'taken' })).statusCode).toBe(201);
      const csv = [
        HEADER + ',nickname',
        ',good-1,INDIVIDUAL,Good One,,,,,,,,,,,',
        ',bad-email,INDIVIDUAL,Bad Email,1990-02-30,,,,,XX,not-an-email,,,,',
        ',bad-type,ROBOT,,,,,,,,,,,,',
        ',biz-no-date,BUSINESS,,,,,,,,,Acme,,,',
        ',taken,INDIVIDUAL,Clash,,,,,,,,,,,',
        ',short-row,INDIVIDUAL',
        ',odd-column,INDIVIDUAL,Odd,,,,,,,,,,,hello',
        ',good-2,INDIVIDUAL,Good Two,,,,,,,,,,,',
        ',line-break,INDIVIDUAL,"Two\nLines",,,,,,,,,,,',
      ].join('\n');
      const jobId = await accepted(caller, csv);
      await ended(caller, jobId);
      const job = await jobOf(caller, jobId);
      // The quoted line break is one row's cell (9 rows, not 10), refused as POST /customers refuses control characters.
      expect([job.status, job.progress]).toEqual(['COMPLETED', { total: 9, processed: 9, successful: 2, failed: 7 }]);
      const byRow = new Map(job.errors.map((e: any) => [e.details.row, e]));
      const fields = (row: number) => ((byRow.get(row) as any).details.errors ?? []).map((e: any) => e.field).sort();
      expect([...byRow.keys()]).toEqual([2, 3, 4, 5, 6, 7, 9]);
      expect(byRow.get(2)).toMatchObject({ correlationId: 'bad-email', code: 'INVALID_INPUT' });
      // An address needs addressLine1 and postalCode, as POST /customers' address needs line1 and postalCode.
      expect(fields(2)).toEqual(['addressLine1', 'birthDate', 'country', 'email', 'postalCode']);
      expect(fields(3)).toEqual(['customerType']);
      expect(fields(4)).toEqual(['businessIncorporatedOn', 'businessTaxId']);
      expect(byRow.get(5)).toMatchObject({ correlationId: 'taken', code: 'CONFLICT' });
      expect(byRow.get(6)).toMatchObject({ correlationId: 'row_6', code: 'INVALID_CSV_FORMAT' });
      expect(fields(7)).toEqual(['nickname']);
      expect((byRow.get(9) as any).details.errors).toEqual([{ field: 'fullName', message: expect.stringContaining('control characters') }]);
      const ids = (await customersOf(caller)).data.map((c) => c.platformCustomerId).sort();
      expect(ids).toEqual(['good-1', 'good-2', 'taken']);
    });

    it('fails an import whose every row is refused, and one whose CSV cannot be read, with a verified BULK_UPLOAD.FAILED', async () => {
      const caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      const refused = await accepted(caller, `${HEADER}\n,x,ROBOT,,,,,,,,,,,\n,y,ROBOT,,,,,,,,,,,\n`);
      expect((await ended(caller, refused)).payload!.type).toBe('BULK_UPLOAD.FAILED');
      expect(await jobOf(caller, refused)).toMatchObject({ status: 'FAILED', progress: { total: 2, processed: 2, successful: 0, failed: 2 } });
      const unreadable = await accepted(caller, `${HEADER}\n,ok,INDIVIDUAL,A,,,,,,,,,,\n,"unclosed,INDIVIDUAL,B,,,,,,,,,,\n`);
      expect((await ended(caller, unreadable)).payload!.type).toBe('BULK_UPLOAD.FAILED');
      const job = await jobOf(caller, unreadable);
      expect(job.status).toBe('FAILED');
      expect(job.errors).toEqual([expect.objectContaining({ code: 'INVALID_CSV_FORMAT' })]);
      // A bad quote early in a long file: the rest of the upload is still read, and the answer comes.
      const badQuote = await accepted(caller, `${HEADER}\n,"a"b,INDIVIDUAL,,,,,,,,,,,\n${',z,INDIVIDUAL,Z,,,,,,,,,,\n'.repeat(5000)}`);
      expect((await ended(caller, badQuote)).payload!.type).toBe('BULK_UPLOAD.FAILED');
      expect((await jobOf(caller, badQuote)).errors).toEqual([expect.objectContaining({ code: 'INVALID_CSV_FORMAT', details: { row: 1 } })]);
      expect((await customersOf(caller)).totalCount).toBe(0);
    });
  },
  { BULK_IMPORT_BATCH_ROWS: '3' },
);

describeEachEngine(
  'bulk customer import: batches, resumption, limits, isolation and replays',
  (t) => {
    const rows = (n: number, prefix: string) => [HEADER, ...Array.from({ length: n }, (_, i) => `,${prefix}-${i + 1},INDIVIDUAL,Person ${i + 1},,,,,,,,,,`)].join('\n');
    const importJobs = (tt: TestApp) => queuedJobs(tt.services.store.db, BULK_IMPORT_JOB);

    it('imports batch by batch with progress, and a batch whose commit was lost is imported once when run again', async () => {
      const caller = await t.newCaller();
      const jobId = await accepted(caller, rows(5, 'p'));
      expect(await jobOf(caller, jobId)).toMatchObject({ status: 'PENDING', progress: { total: 5, processed: 0, successful: 0, failed: 0 } });
      // The first batch's write, rolled back as by a crash before its commit: nothing of it stays.
      await expect(
        t.services.store.transaction(async (uow) => {
          await t.services.bulkImports.importBatch(uow, { importId: jobId });
          throw new Error('crash before the commit');
        }),
      ).rejects.toThrow('crash');
      expect((await customersOf(caller)).totalCount).toBe(0);
      // One batch (2 rows) through the real handler, then the rest.
      const [first] = await t.services.store.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', BULK_IMPORT_JOB).where('state', '=', 'queued').execute();
      const write = (await bulkImportHandler.run({ payload: first!.payload } as never, t.services, t.app.log)) as { write: (u: never) => Promise<void> };
      await t.services.store.transaction((uow) => write.write(uow as never));
      expect(await jobOf(caller, jobId)).toMatchObject({ status: 'PROCESSING', progress: { total: 5, processed: 2, successful: 2, failed: 0 } });
      await t.services.store.db.updateTable('jobs').set({ state: 'done' }).where('id', '=', first!.id).execute();
      await drainJobs(t.services, t.app.log, bulkImportHandler);
      expect(await importJobs(t)).toBe(0);
      expect(await jobOf(caller, jobId)).toMatchObject({ status: 'COMPLETED', progress: { total: 5, processed: 5, successful: 5, failed: 0 } });
      const ids = (await customersOf(caller)).data.map((c) => c.platformCustomerId).sort();
      expect(ids).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
    });

    it('fails an import whose batch job gave up for good, counting the rows it never reached, instead of leaving it PROCESSING, stamped on the platform clock', async () => {
      const caller = await t.newCaller();
      const jobId = await accepted(caller, rows(3, 'stop'));
      const [queued] = await t.services.store.db.selectFrom('jobs').selectAll().where('kind', '=', BULK_IMPORT_JOB).where('state', '=', 'queued').execute();
      const advanced = await caller.req('POST', '/sandbox/clock/advance', { seconds: 3 * 86_400 });
      const clockNow = Date.parse(advanced.json<{ now: string }>().now);
      await t.services.store.transaction((uow) => bulkImportHandler.gaveUp!(uow, queued!, Date.now(), t.services));
      const job = await jobOf(caller, jobId);
      expect([job.status, job.progress]).toEqual(['FAILED', { total: 3, processed: 3, successful: 0, failed: 3 }]);
      expect(Date.parse(job.completedAt)).toBeGreaterThanOrEqual(clockNow);
      expect(job.errors).toEqual([expect.objectContaining({ correlationId: 'row_1', code: 'INTERNAL_ERROR' })]);
      const events = await t.services.store.db.selectFrom('webhook_events').select('type').where('platform_id', '=', caller.platformId).execute();
      expect(events.map((e) => e.type)).toEqual(['BULK_UPLOAD.FAILED']);
      await t.services.store.db.updateTable('jobs').set({ state: 'done' }).where('id', '=', queued!.id).execute();
    });

    it('stages an upload as it arrives: a full batch is stored while the rest of the file is still to come', async () => {
      const caller = await t.newCaller();
      const upload = new PassThrough();
      const staging = t.services.bulkImports.stage(caller.platformId, 'sandbox', upload);
      upload.write(`${HEADER}\n,s-1,INDIVIDUAL,One,,,,,,,,,,\n,s-2,INDIVIDUAL,Two,,,,,,,,,,\n,s-3,INDIVIDUAL,Thr`);
      const stored = async () => {
        const batches = await t.services.store.db
          .selectFrom('bulk_import_batches')
          .innerJoin('bulk_import_jobs', 'bulk_import_jobs.id', 'bulk_import_batches.job_id')
          .select(['seq', 'rows'])
          .where('bulk_import_jobs.platform_id', '=', caller.platformId)
          .orderBy('seq')
          .execute();
        return batches.map((b) => [b.seq, (JSON.parse(b.rows) as [number, unknown][]).map(([n]) => n)]);
      };
      // The first two rows are a batch of their own, in the database before the upload goes on.
      expect(await until('the first batch to be stored', async () => ((await stored()).length > 0 ? stored() : undefined))).toEqual([[0, [1, 2]]]);
      upload.end('ee,,,,,,,,,,\n');
      const staged = await staging;
      expect(staged.unreadable).toBeUndefined();
      expect(await stored()).toEqual([[0, [1, 2]], [1, [3]]]);
      await t.services.bulkImports.discard(staged.importId);
    });

    it('answers 413 for a CSV past BULK_IMPORT_MAX_BYTES and keeps nothing of it', async () => {
      const caller = await t.newCaller();
      const res = await uploadCsv(caller, rows(200, 'big'));
      expect([res.statusCode, res.json().code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      const left = await t.services.store.db.selectFrom('bulk_import_jobs').select('id').where('platform_id', '=', caller.platformId).execute();
      expect(left).toEqual([]);
      const orphans = await t.services.store.db.selectFrom('bulk_import_batches').select('job_id').where('job_id', 'not in', t.services.store.db.selectFrom('bulk_import_jobs').select('id')).execute();
      expect(orphans).toEqual([]);
    });

    it('refuses a body without the file, with another field, or as JSON', async () => {
      const noFile = multipartForm([{ name: 'other', value: 'x' }]);
      expect([...fieldErrors(await t.caller.req('POST', '/customers/bulk/csv', noFile.payload, noFile.headers)).keys()].sort()).toEqual(['file', 'other']);
      const json = await t.caller.req('POST', '/customers/bulk/csv', { file: 'a,b' });
      expect([json.statusCode, json.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    });

    it('isolates jobs per platform and environment: a foreign job answers 404 BULK_UPLOAD_JOB_NOT_FOUND like an unknown one', async () => {
      const jobId = await accepted(t.caller, rows(1, 'iso'));
      for (const other of [await t.newCaller(), await t.newCaller('production', t.caller)]) {
        for (const id of [jobId, 'Job:0190ffff-0000-7000-8000-000000000000']) {
          const res = await other.req('GET', `/customers/bulk/jobs/${id}`);
          expect([res.statusCode, res.json().code]).toEqual([404, 'BULK_UPLOAD_JOB_NOT_FOUND']);
        }
      }
      expect((await t.caller.req('GET', `/customers/bulk/jobs/${jobId}`)).statusCode).toBe(200);
    });

    it('replays an upload sent again with its Idempotency-Key: one job, and the repeat keeps nothing', async () => {
      const caller = await t.newCaller();
      const key = { 'idempotency-key': `csv-${Date.now()}` };
      const first = await uploadCsv(caller, rows(2, 'idem'), key);
      expect(first.statusCode, first.body).toBe(202);
      const again = await uploadCsv(caller, rows(2, 'idem'), key);
      expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([202, 'true']);
      expect(again.json()).toEqual(first.json());
      expect([...fieldErrors(await uploadCsv(caller, rows(3, 'idem'), key)).keys()]).toEqual(['Idempotency-Key']);
      const jobs = await t.services.store.db.selectFrom('bulk_import_jobs').select('id').where('platform_id', '=', caller.platformId).execute();
      expect(jobs.map((j) => j.id)).toEqual([first.json().jobId]);
    });
  },
  { BULK_IMPORT_BATCH_ROWS: '2', BULK_IMPORT_MAX_BYTES: '4096' },
);

describeEachEngine(
  'bulk customer import: uniqueness across a batch, between batches and against existing customers',
  (t) => {
    let receiver: WebhookReceiver;
    let worker: Worker;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      worker = startWorker(t.services, t.app.log);
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.stop();
    });

    it('refuses the later of two rows with one platformCustomerId or UMA address (in a batch or across batches) and rows clashing with active customers, while their neighbours are created with accounts, KYC and webhooks', async () => {
      const caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      const create = async (body: unknown) => {
        const res = await caller.req('POST', '/customers', body);
        expect(res.statusCode, res.body).toBe(201);
        return res.json<{ id: string }>().id;
      };
      await create({ customerType: 'INDIVIDUAL', platformCustomerId: 'held', umaAddress: '$held@uma.example.com' });
      const gone = await create({ customerType: 'INDIVIDUAL', platformCustomerId: 'gone', umaAddress: '$gone@uma.example.com' });
      expect((await caller.req('DELETE', `/customers/${gone}`)).statusCode).toBe(200);
      // Batches of 5: rows 1 to 5, then 6 to 9.
      const csv = [
        'umaAddress,platformCustomerId,customerType,fullName,birthDate',
        ',new-1,INDIVIDUAL,New One,',
        ',held,INDIVIDUAL,Held Again,',
        'HELD@uma.example.com,new-3,INDIVIDUAL,Uma Taken,',
        'dup4@uma.example.com,new-1,INDIVIDUAL,Second New One,',
        '$New5@uma.example.com,new-5,INDIVIDUAL,Pending Person 001,',
        'new5@uma.example.com,new-6,INDIVIDUAL,Uma Of Row Five,',
        ',new-7,INDIVIDUAL,Bad Date,1990-02-30',
        'gone@uma.example.com,gone,INDIVIDUAL,Back Again 003,',
        'dup4@uma.example.com,new-9,INDIVIDUAL,Refused Person 002,',
      ].join('\n');
      const jobId = await accepted(caller, csv);
      await receiver.waitFor(() => receiver.verifiedUnique().some((d) => (d.payload?.data as { id?: string } | undefined)?.id === jobId), 20_000);
      const job = await jobOf(caller, jobId);
      expect([job.status, job.progress]).toEqual(['COMPLETED', { total: 9, processed: 9, successful: 4, failed: 5 }]);
      expect(job.errors.map((e: any) => [e.details.row, e.correlationId, e.code, (e.details.errors ?? []).map((f: any) => f.field)])).toEqual([
        [2, 'held', 'CONFLICT', ['platformCustomerId']],
        [3, 'new-3', 'UMA_ADDRESS_EXISTS', ['umaAddress']],
        [4, 'new-1', 'CONFLICT', ['platformCustomerId']],
        [6, 'new-6', 'UMA_ADDRESS_EXISTS', ['umaAddress']],
        [7, 'new-7', 'INVALID_INPUT', ['birthDate']],
      ]);
      // The first of two rows wins; a refused row holds nothing (row 9 takes row 4's UMA address); a deleted customer's values are free.
      const created = new Map((await customersOf(caller)).data.filter((c) => c.platformCustomerId !== 'held').map((c) => [c.platformCustomerId as string, c]));
      expect([...created.keys()].sort()).toEqual(['gone', 'new-1', 'new-5', 'new-9']);
      expect(created.get('new-1')).toMatchObject({ fullName: 'New One', kycStatus: 'APPROVED' });
      expect(created.get('new-5')).toMatchObject({ umaAddress: '$new5@uma.example.com', kycStatus: 'PENDING' });
      expect(created.get('gone')).toMatchObject({ umaAddress: '$gone@uma.example.com', kycStatus: 'UNVERIFIED' });
      expect(created.get('new-9')).toMatchObject({ umaAddress: '$dup4@uma.example.com', kycStatus: 'REJECTED' });
      for (const [pcid, c] of created) {
        const accounts = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(c.id)}`)).json<{ data: any[] }>().data;
        expect(accounts.map((a) => [a.balance.currency.code, a.type]), pcid).toEqual([['USD', 'INTERNAL_FIAT']]);
      }
      // The webhooks POST /customers sends: one per status that has one (003 leaves the customer UNVERIFIED, which has none).
      const ids = new Set([...created.values()].map((c) => c.id as string));
      const kycHooks = () =>
        receiver
          .verifiedUnique()
          .filter((d) => String(d.payload!.type).startsWith('CUSTOMER.KYC_') && ids.has((d.payload!.data as { id: string }).id))
          .map((d) => [(d.payload!.data as { platformCustomerId: string }).platformCustomerId, d.payload!.type])
          .sort();
      await receiver.waitFor(() => kycHooks().length >= 3);
      expect(kycHooks()).toEqual([
        ['new-1', 'CUSTOMER.KYC_APPROVED'],
        ['new-5', 'CUSTOMER.KYC_PENDING'],
        ['new-9', 'CUSTOMER.KYC_REJECTED'],
      ]);
      const stored = await t.services.store.db.selectFrom('webhook_events').select('type').where('platform_id', '=', caller.platformId).where('type', 'like', 'CUSTOMER.KYC_%').execute();
      expect(stored).toHaveLength(5); // held's and gone's at their POST, and the three above
    });

    it('refuses a row whose platformCustomerId another writer takes while its batch is written, and creates its neighbours', async () => {
      const caller = await t.newCaller();
      const { store, customers } = t.services;
      // The other writer holds 'raced' uncommitted: the batch's clash query cannot see it yet.
      const other = await store.begin();
      await customers.create(caller.platformId, 'sandbox', { customerType: 'INDIVIDUAL', platformCustomerId: 'raced' }, other);
      const batch = store.transaction((uow) =>
        customers.createMany(uow, caller.platformId, 'sandbox', [
          { customerType: 'INDIVIDUAL', platformCustomerId: 'before', fullName: 'Before Raced' },
          { customerType: 'INDIVIDUAL', platformCustomerId: 'raced', fullName: 'Raced Row' },
          { customerType: 'INDIVIDUAL', platformCustomerId: 'after', fullName: 'After Raced' },
        ]),
      );
      if (store.engine === 'postgres') {
        // The batch's insert waits on the other writer's unique key (SQLite's one writer makes the whole batch wait instead).
        await until('the batch to wait on the other writer', async () => {
          const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into "customers"%'`.execute(store.db);
          return r.rows[0]!.n > 0 ? true : undefined;
        });
      }
      await other.commit();
      const [before, raced, after] = await batch;
      expect(raced).toBeInstanceOf(ConflictError);
      expect((raced as ConflictError).clash).toBe('platformCustomerId');
      expect([before, after].map((c) => (c as { platformCustomerId?: string }).platformCustomerId)).toEqual(['before', 'after']);
      const held = await store.db.selectFrom('customers').select(['platform_customer_id', 'data']).where('platform_id', '=', caller.platformId).orderBy('platform_customer_id').execute();
      expect(held.map((r) => [r.platform_customer_id, JSON.parse(r.data).fullName])).toEqual([['after', 'After Raced'], ['before', 'Before Raced'], ['raced', undefined]]);
      const accounts = await store.db.selectFrom('internal_accounts').select('customer_id').where('platform_id', '=', caller.platformId).execute();
      expect(accounts).toHaveLength(3);
    });
  },
  { BULK_IMPORT_BATCH_ROWS: '5' },
);
