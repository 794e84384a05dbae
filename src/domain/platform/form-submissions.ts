import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { claimFormSubmission, completeFormSubmission, deleteFormSubmission, deleteFormSubmissionsBefore, findFormSubmission } from '../../store/form-submissions-repo.js';
import type { Store } from '../../store/store.js';

/** How long a form's token is remembered, as an Idempotency-Key's answer is. */
export const FORM_SUBMISSION_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a repeated submission waits for the first to finish before it is refused. */
const WAIT_FOR_FIRST_MS = 5_000;
const POLL_MS = 50;
/** Old tokens are deleted in batches of this size, at most once per interval per process while a batch comes back full (as Idempotency-Keys are). */
const PRUNE_BATCH = 1000;
const PRUNE_INTERVAL_MS = 60_000;

/** A form sent with its page's token: the platform, the token, the form's action path and the values sent. */
export interface SubmissionKey {
  platformId: string;
  token: string;
  path: string;
  /** SHA-256 (hex) of the values: another choice sent from the same page (the back button) is another submission. */
  bodySha256: string;
}

export type SubmissionStart =
  /** The first submission of this form with this token: do the work, then `finish`. */
  | { outcome: 'first' }
  /** Sent before, and it led here: go there instead of doing the work again. */
  | { outcome: 'done'; location: string }
  /** Sent before, and still running after the wait. */
  | { outcome: 'running' };

/** The submission's id: one digest of everything that makes it the same submission. */
const idOf = (key: SubmissionKey) => createHash('sha256').update(JSON.stringify([key.platformId, key.token, key.path, key.bodySha256])).digest('hex');

/** What a page's form token looks like (the console renders a UUID); anything else is no token. */
export function isSubmissionToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(value);
}

/**
 * The console's forms do their work once per rendered page: a form sent again with its page's token
 * (a double click, a reload after the POST, the back button) goes where the first went instead of
 * creating a second customer or authorization. The API's Idempotency-Key, for a person's browser.
 */
export class FormSubmissions {
  private nextPruneAt = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly waitMs = WAIT_FOR_FIRST_MS,
  ) {}

  async start(key: SubmissionKey): Promise<SubmissionStart> {
    await this.pruneSometimes();
    const id = idOf(key);
    const deadline = this.now() + this.waitMs;
    for (;;) {
      if (await claimFormSubmission(this.store.db, { id, platform_id: key.platformId, created_at: this.now() })) return { outcome: 'first' };
      const first = await findFormSubmission(this.store.db, id);
      if (first?.location) return { outcome: 'done', location: first.location };
      if (this.now() >= deadline) return { outcome: 'running' };
      // Still running; or gone (the first was refused and let go of the token), then claimed again at once.
      if (first !== undefined) await sleep(POLL_MS);
    }
  }

  /** Ends the first submission: where it led (a redirect), remembered; without one (refused, re-shown), the token is let go. */
  async finish(key: SubmissionKey, location: string | undefined): Promise<void> {
    const id = idOf(key);
    if (location === undefined) await deleteFormSubmission(this.store.db, id);
    else await completeFormSubmission(this.store.db, id, location);
  }

  private async pruneSometimes(): Promise<void> {
    const now = this.now();
    if (now < this.nextPruneAt) return;
    const deleted = await deleteFormSubmissionsBefore(this.store, now - FORM_SUBMISSION_RETENTION_MS, PRUNE_BATCH);
    // A full batch means more are waiting: prune again on the next submission.
    this.nextPruneAt = deleted === PRUNE_BATCH ? now : now + PRUNE_INTERVAL_MS;
  }
}
