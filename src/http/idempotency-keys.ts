import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { deleteIdempotencyKey, findIdempotencyKey, insertIdempotencyKey, lockIdempotencyKey, pruneIdempotencyKeys } from '../store/idempotency-keys-repo.js';
import type { Store } from '../store/store.js';
import type { Savepoint, UnitOfWork } from '../store/unit-of-work.js';

/** How long the first answer to a key is kept and replayed. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Expired records are deleted in batches of this size, at most once per interval per process while a batch comes back full. */
const PRUNE_BATCH = 1000;
const PRUNE_INTERVAL_MS = 60_000;

/** What makes two requests "the same request". */
export interface RequestFingerprint {
  method: string;
  /** The path with its query string. */
  path: string;
  /** SHA-256 (hex) of the raw body bytes. */
  bodySha256: string;
}

export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: string | null;
}

export type Claim =
  | { outcome: 'replay'; answer: StoredAnswer }
  /** The key was used with another method, path or body. */
  | { outcome: 'mismatch' }
  /** A request with this key is still running, in this process or another. */
  | { outcome: 'in-flight' }
  | { outcome: 'started'; attempt: IdempotentAttempt };

/**
 * A request running under a key: its work runs in `unitOfWork` (the services join it), inside the
 * savepoint `work`, and `finish` commits the work and the stored answer together, so a replay
 * never meets work that did not commit nor work done twice.
 */
export class IdempotentAttempt {
  private ended = false;
  constructor(
    readonly unitOfWork: UnitOfWork,
    private readonly work: Savepoint,
    private readonly keys: IdempotencyKeys,
    private readonly slot: KeySlot,
    private readonly fingerprint: RequestFingerprint,
  ) {}

  /**
   * Ends the attempt with its answer: 5xx rolls everything back and stores nothing (a retry may run
   * again); a 4xx drops the work's writes, and what it queued for the commit, and stores the
   * answer (unless `keepWork`: a 4xx whose writes are the point, a counted wrong attempt); anything else commits both.
   */
  async finish(answer: StoredAnswer, now = Date.now(), keepWork = false): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const uow = this.unitOfWork;
    try {
      if (answer.status >= 500) return await uow.rollback();
      if (answer.status >= 400 && !keepWork) await this.work.rollback();
      else await this.work.release();
      await insertIdempotencyKey(uow.db, {
        token_id: this.slot.tokenId,
        key_sha256: this.slot.keySha256,
        method: this.fingerprint.method,
        path: this.fingerprint.path,
        body_sha256: this.fingerprint.bodySha256,
        status: answer.status,
        content_type: answer.contentType,
        body: answer.body === null ? null : seal(this.slot.sealKey, answer.body),
        created_at: now,
        expires_at: now + IDEMPOTENCY_RETENTION_MS,
      });
      await this.keys.pruneSometimes(uow, now);
      await uow.commit();
    } catch (err) {
      await uow.rollback().catch(() => undefined);
      throw err;
    } finally {
      this.keys.release(this.slot);
    }
  }

  /** Ends the attempt without an answer to keep: everything is rolled back. */
  async abandon(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await this.unitOfWork.rollback();
    } finally {
      this.keys.release(this.slot);
    }
  }
}

/** Idempotency-Key records: one per (API token, key), the first answer kept IDEMPOTENCY_RETENTION_MS. */
export class IdempotencyKeys {
  /** Keys running in this process; other processes are excluded by the database (lockIdempotencyKey). */
  private readonly running = new Set<string>();
  private nextPruneAt = 0;

  constructor(private readonly store: Store) {}

  /** Replays, refuses, or starts the request sent with `key` by `tokenId`. */
  async claim(tokenId: string, key: string, fingerprint: RequestFingerprint, now = Date.now()): Promise<Claim> {
    const slot = keySlot(tokenId, key);
    if (this.running.has(slot.id)) return { outcome: 'in-flight' };
    this.running.add(slot.id);
    let uow: UnitOfWork | undefined;
    try {
      uow = await this.store.begin();
      if (!(await lockIdempotencyKey(uow, tokenId, slot.keySha256))) {
        await this.endWithout(uow, slot);
        return { outcome: 'in-flight' };
      }
      const row = await findIdempotencyKey(uow.db, tokenId, slot.keySha256);
      if (row && row.expires_at > now) {
        await this.endWithout(uow, slot);
        const same = row.method === fingerprint.method && row.path === fingerprint.path && row.body_sha256 === fingerprint.bodySha256;
        if (!same) return { outcome: 'mismatch' };
        return { outcome: 'replay', answer: { status: row.status, contentType: row.content_type, body: row.body === null ? null : unseal(slot.sealKey, row.body) } };
      }
      if (row) await deleteIdempotencyKey(uow.db, tokenId, slot.keySha256);
      // A refused request (4xx) keeps its record and drops its work: the work runs in this savepoint.
      const work = await uow.openSavepoint();
      return { outcome: 'started', attempt: new IdempotentAttempt(uow, work, this, slot, fingerprint) };
    } catch (err) {
      await uow?.rollback().catch(() => undefined);
      this.running.delete(slot.id);
      throw err;
    }
  }

  release(slot: KeySlot): void {
    this.running.delete(slot.id);
  }

  /** Lazy pruning inside a request that already writes: no request without a key pays for it. */
  async pruneSometimes(uow: UnitOfWork, now: number): Promise<void> {
    if (now < this.nextPruneAt) return;
    const deleted = await pruneIdempotencyKeys(uow, now, PRUNE_BATCH);
    // A full batch means more are waiting: prune again on the next request.
    this.nextPruneAt = deleted === PRUNE_BATCH ? now : now + PRUNE_INTERVAL_MS;
  }

  private async endWithout(uow: UnitOfWork, slot: KeySlot): Promise<void> {
    this.running.delete(slot.id);
    await uow.rollback();
  }
}

/** A (token, key) pair as stored: the key's digest names the record, and a key derived from both seals its body. */
export interface KeySlot {
  tokenId: string;
  keySha256: string;
  sealKey: Buffer;
  /** Names the slot among this process's running requests. */
  id: string;
}

export function keySlot(tokenId: string, key: string): KeySlot {
  const keySha256 = createHash('sha256').update(key).digest('hex');
  const sealKey = createHash('sha256').update(`idempotent answer\n${tokenId}\n${key}`).digest();
  return { tokenId, keySha256, sealKey, id: `${tokenId} ${keySha256}` };
}

/** AES-256-GCM: base64 of iv (12 bytes), tag (16 bytes) and ciphertext. */
export function seal(sealKey: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function unseal(sealKey: Buffer, stored: string): string {
  const bytes = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealKey, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
