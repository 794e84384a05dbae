import pg from 'pg';

/** A subscription to a wake-up channel; `connected` says whether wake-ups can arrive right now. */
export interface WakeupListener {
  readonly connected: boolean;
  close(): Promise<void>;
}

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * One dedicated connection that LISTENs on `channel` and calls `onWake` for each notification,
 * except those whose payload is `ignore` (this store's own notifications: its commits already woke
 * this process in-process). When the connection drops it reconnects with backoff (100 ms doubling
 * to 5 s), and calls `onWake` once connected again, since notifications sent meanwhile are lost.
 */
export class PgListener implements WakeupListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  private live = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    /** Called with the notification's payload; without one after a reconnection. */
    private readonly onWake: (payload?: string) => void,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly ignore?: string,
  ) {
    void this.connect();
  }

  get connected(): boolean {
    return this.live;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    this.client = client;
    let failed = false;
    const drop = (err?: unknown) => {
      if (failed) return;
      failed = true;
      this.live = false;
      if (err !== undefined && !this.closed) this.onError(err);
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (!this.closed) {
        this.timer = setTimeout(() => void this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
      }
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (msg) => {
      // Its own NOTIFY coming back woke the worker a second time: a claim and a due-time read per commit, for nothing.
      if (msg.channel === this.channel && (this.ignore === undefined || msg.payload !== this.ignore)) this.onWake(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
      if (this.closed || failed) return;
      this.live = true;
      this.retryMs = RECONNECT_MIN_MS;
      // Whatever was notified while this connection was down is looked for now.
      this.onWake();
    } catch (err) {
      drop(err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }
}

/**
 * Sends NOTIFY on a channel after commits, coalesced: at most one in flight, at most one every
 * NOTIFY_EVERY_MS, and calls made meanwhile are covered by the next one. A lost notification is
 * harmless: listeners also poll, slowly. Not NOTIFY inside the committing transactions (say from a
 * trigger on the jobs table): PostgreSQL serializes the commits of every transaction that
 * notified, WAL flush included, and at 700 simulations/s the API's commits queued on that lock.
 */
export class PgNotifier {
  private inFlight = false;
  private again = false;
  private lastSentAt = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    /** Sent as the payload: the store's own listeners ignore it (see PgListener). */
    private readonly sender = '',
  ) {}

  notify(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    const wait = this.lastSentAt + NOTIFY_EVERY_MS - performance.now();
    const send = () => {
      this.lastSentAt = performance.now();
      void this.pool
        .query('SELECT pg_notify($1, $2)', [this.channel, this.sender])
        .catch(() => undefined)
        .finally(() => {
          this.inFlight = false;
          if (this.again) {
            this.again = false;
            this.notify();
          }
        });
    };
    if (wait > 0) setTimeout(send, wait).unref();
    else send();
  }
}

/**
 * The most often one process notifies a channel: another process's idle worker learns of a job up
 * to this much later (this process's own worker is woken in-process at once, and takes the job if
 * it is free). At 600 simulations/s one NOTIFY per commit was one statement in eleven; one every
 * 5 ms still one in ten (1,721 of 17,001 statements for 5,200 webhooks at 500/s: a NOTIFY's own
 * round trip takes longer than 5 ms under that load); one every 25 ms: see the commit that set it.
 */
const NOTIFY_EVERY_MS = 25;
