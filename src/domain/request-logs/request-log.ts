import type { Store } from '../../store/store.js';
import { findRequestLog, insertRequestLogs, listRequestLogs, type RequestLogFilter } from '../../store/request-logs-repo.js';
import type { RequestLogRow } from '../../store/tables/request-logs.js';
import { NotFoundError } from '../shared/errors.js';
import { instant, listScope, type Cursors, type Page } from '../shared/pagination.js';
import { redactText, storedBody } from './redaction.js';

/** What the HTTP layer hands over for one answered request; redacted only when written, off the request path. */
export interface CapturedRequest {
  id: string;
  platformId: string;
  tokenId: string;
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  status: number;
  durationMs: number;
  clientRequestId?: string | undefined;
  /** The parsed JSON body, or a summary of one that is not JSON (never its bytes). */
  requestBody?: unknown;
  /** The answer's JSON text, parsed only when written; or a summary of an answer that is not JSON. */
  responseText?: string;
  responseSummary?: unknown;
}

export interface RequestLogSettings {
  enabled: boolean;
  /** Characters of each stored body; longer ones are cut. */
  bodyChars: number;
  /** Entries held in memory at most; past it new ones are dropped (counted) until a flush. */
  maxBuffered?: number;
  /** A flush starts once this many are buffered, else FLUSH_AFTER_MS after the first. */
  batchSize?: number;
  /** The share of the process's time the log may spend writing (WRITE_SHARE unless set). */
  writeShare?: number;
  /** Writing time banked while idle, at most (MAX_BANKED_MS unless set). */
  maxBankedMs?: number;
}

export interface RequestLogView {
  id: string;
  method: string;
  path: string;
  query?: string;
  status: number;
  durationMs: number;
  tokenId: string;
  clientRequestId?: string;
  createdAt: string;
  requestBody?: string;
  responseBody?: string;
}

const FLUSH_AFTER_MS = 200;
/**
 * The share of a process's time the log may spend writing entries (building rows, redacting,
 * inserting); past it new entries are shed (counted), decided before anything is captured. Logging
 * every answer took the list bench (64 connections, 12 KB pages) from 0.63 to 0.07 of the
 * bare-Fastify floor on SQLite; with this gate it measured 0.58 against 0.63 with the log off, and
 * PostgreSQL 0.47 against 0.51, back to back on one machine (run-to-run spread about 0.1).
 */
const WRITE_SHARE = 0.02;
/** Writing time the log may bank while idle, so a burst after a pause is logged whole. */
const MAX_BANKED_MS = 250;

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function render(row: RequestLogRow): RequestLogView {
  const out: RequestLogView = {
    id: row.id,
    method: row.method,
    path: row.path,
    status: row.status,
    durationMs: row.duration_us / 1000,
    tokenId: row.token_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
  if (row.query !== null) out.query = row.query;
  if (row.client_request_id !== null) out.clientRequestId = row.client_request_id;
  if (row.request_body !== null) out.requestBody = row.request_body;
  if (row.response_body !== null) out.responseBody = row.response_body;
  return out;
}

/**
 * The request log: entries are buffered in memory and written in batches, off the request path; a
 * read first writes what this process holds, so a client reads its own requests. What a crash
 * catches in the buffer is lost.
 */
export class RequestLog {
  private buffer: { entry: CapturedRequest; at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Entries dropped because the buffer was full, the writing budget was spent, or their write failed. */
  dropped = 0;
  private readonly maxBuffered: number;
  private readonly batchSize: number;
  private readonly writeShare: number;
  /** Milliseconds of writing the log may still spend (see WRITE_SHARE), as of `budgetAt`. */
  private budgetMs: number;
  private budgetAt = performance.now();
  private readonly maxBankedMs: number;

  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly settings: RequestLogSettings,
  ) {
    this.maxBuffered = settings.maxBuffered ?? 10_000;
    this.batchSize = settings.batchSize ?? 500;
    this.writeShare = settings.writeShare ?? WRITE_SHARE;
    this.maxBankedMs = settings.maxBankedMs ?? MAX_BANKED_MS;
    this.budgetMs = this.maxBankedMs;
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  private now(): number {
    return Date.now();
  }

  /** Whether an entry recorded now would be kept (room in the buffer, writing time left); the capture asks first. */
  accepting(): boolean {
    if (!this.settings.enabled) return false;
    if (this.buffer.length < this.maxBuffered && this.budget() > 0) return true;
    this.dropped += 1;
    return false;
  }

  /** Buffers an answered request; costs the request a push. */
  record(entry: CapturedRequest): void {
    if (!this.settings.enabled) return;
    if (this.buffer.length >= this.maxBuffered || this.budget() <= 0) {
      this.dropped += 1;
      return;
    }
    // When it began, floored: for requests one after another never decreasing (rounding could swap
    // two within a millisecond); ties fall to the time-ordered id.
    this.buffer.push({ entry, at: Math.floor(this.now() - entry.durationMs) });
    if (this.buffer.length >= this.batchSize) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Writes everything buffered so far (after any write already under way); never throws. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: { entry: CapturedRequest; at: number }[]): Promise<void> {
    for (let i = 0; i < batch.length; i += this.batchSize) {
      const slice = batch.slice(i, i + this.batchSize);
      const started = performance.now();
      try {
        await insertRequestLogs(this.store.db, slice.map(({ entry, at }) => this.row(entry, at)));
      } catch {
        // A log line is not worth failing a request or a read for: the batch is counted as lost.
        this.dropped += slice.length;
      }
      this.budget();
      this.budgetMs -= performance.now() - started;
    }
  }

  /** The writing time left: it grows by `writeShare` of the time passed, up to the bank's bound. */
  private budget(): number {
    const now = performance.now();
    this.budgetMs = Math.min(this.maxBankedMs, this.budgetMs + (now - this.budgetAt) * this.writeShare);
    this.budgetAt = now;
    return this.budgetMs;
  }

  private row(e: CapturedRequest, at: number): RequestLogRow {
    const q = e.url.indexOf('?');
    return {
      id: e.id,
      platform_id: e.platformId,
      token_id: e.tokenId,
      method: e.method,
      path: redactText(q < 0 ? e.url : e.url.slice(0, q)),
      query: q < 0 ? null : redactText(e.url.slice(q + 1)),
      status: e.status,
      duration_us: Math.max(0, Math.round(e.durationMs * 1000)),
      client_request_id: e.clientRequestId === undefined ? null : redactText(e.clientRequestId),
      request_body: storedBody(e.requestBody, this.settings.bodyChars),
      response_body: storedBody(e.responseText === undefined ? e.responseSummary : parsedOrText(e.responseText), this.settings.bodyChars),
      created_at: at,
    };
  }

  async list(
    platformId: string,
    limit: number,
    cursor: string | undefined,
    filter: { method?: string | undefined; path?: string | undefined; status?: number | undefined; from?: string | undefined; to?: string | undefined },
  ): Promise<Page<RequestLogView>> {
    const f: RequestLogFilter = { method: filter.method, pathPrefix: filter.path, status: filter.status, from: instant('from', filter.from), to: instant('to', filter.to) };
    const scope = listScope('request-logs', platformId, { method: filter.method, path: filter.path, status: filter.status?.toString(), from: filter.from, to: filter.to });
    const q = this.cursors.query(scope, limit, cursor, 'desc');
    await this.flush();
    const { rows, total } = await listRequestLogs(this.store.db, platformId, q, f);
    return this.cursors.page(scope, q, rows, total, render);
  }

  async get(platformId: string, id: string): Promise<RequestLogView> {
    await this.flush();
    const row = await findRequestLog(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('RequestLog', id);
    return render(row);
  }
}
