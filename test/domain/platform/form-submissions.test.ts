import { beforeAll, expect, it } from 'vitest';
import { FORM_SUBMISSION_RETENTION_MS, FormSubmissions, isSubmissionToken } from '../../../src/domain/platform/form-submissions.js';
import { migrateToLatest } from '../../../src/store/migrator.js';
import { insertPlatform } from '../../../src/store/tokens-repo.js';
import { describeOnNewDatabase } from '../../helpers/migrations.js';

const key = (token: string, over: Partial<{ platformId: string; path: string; bodySha256: string }> = {}) => ({
  platformId: 'Platform:forms',
  token,
  path: '/console/customers/new/BUSINESS',
  bodySha256: 'a'.repeat(64),
  ...over,
});

describeOnNewDatabase("the console's form submissions (FormSubmissions)", (t) => {
  beforeAll(async () => {
    await migrateToLatest(t.store);
    await insertPlatform(t.store.db, { id: 'Platform:forms', name: 'forms', created_at: 1 });
    await insertPlatform(t.store.db, { id: 'Platform:other', name: 'other', created_at: 1 });
  });

  it('does a token once: sent again while the first runs it waits and is refused; once the first led somewhere, it goes there', async () => {
    const forms = new FormSubmissions(t.store, Date.now, 120);
    const k = key('token-one-0000000001');
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
    const started = Date.now();
    expect(await forms.start(k)).toEqual({ outcome: 'running' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    // The repeat waiting while the first finishes is sent where the first went.
    const waiting = new FormSubmissions(t.store, Date.now, 5_000).start(k);
    await forms.finish(k, '/console/customers/Customer:1');
    expect(await waiting).toEqual({ outcome: 'done', location: '/console/customers/Customer:1' });
    expect(await forms.start(k)).toEqual({ outcome: 'done', location: '/console/customers/Customer:1' });
  });

  it('another platform, form or set of values with the same token is another submission', async () => {
    const forms = new FormSubmissions(t.store, Date.now, 50);
    const k = key('token-two-0000000002');
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
    await forms.finish(k, '/console/customers/Customer:2');
    expect(await forms.start({ ...k, platformId: 'Platform:other' })).toEqual({ outcome: 'first' });
    expect(await forms.start({ ...k, path: '/console/customers/new/INDIVIDUAL' })).toEqual({ outcome: 'first' });
    expect(await forms.start({ ...k, bodySha256: 'b'.repeat(64) })).toEqual({ outcome: 'first' });
  });

  it('a first submission that led nowhere (refused, its form shown again) lets its token go', async () => {
    const forms = new FormSubmissions(t.store, Date.now, 50);
    const k = key('token-three-00000003');
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
    await forms.finish(k, undefined);
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
  });

  it('forgets tokens a day old', async () => {
    let now = Date.now();
    const forms = new FormSubmissions(t.store, () => now, 50);
    const k = key('token-four-000000004');
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
    await forms.finish(k, '/console/customers/Customer:4');
    now += FORM_SUBMISSION_RETENTION_MS + 60_001;
    // The prune runs as a submission starts, at most once a minute.
    expect(await forms.start(key('token-five-000000005'))).toEqual({ outcome: 'first' });
    expect(await forms.start(k)).toEqual({ outcome: 'first' });
  });

  it('takes as a token only what a page renders', () => {
    expect(isSubmissionToken('0b7e9d5a-2c1f-4d55-9f3e-6a1b2c3d4e5f')).toBe(true);
    for (const bad of [undefined, 1, '', 'short', 'x'.repeat(65), 'has space in it 123', "quote'0123456789012"]) expect(isSubmissionToken(bad)).toBe(false);
  });
});
