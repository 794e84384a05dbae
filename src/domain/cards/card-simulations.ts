import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import * as accountsRepo from '../../store/accounts-repo.js';
import * as repo from '../../store/cards-repo.js';
import type { AcceptedAuthorizationRows, CardTransactionChanges, CardTransactionView, FinishedOperation } from '../../store/cards-repo.js';
import { enqueueJob, enqueueJobs, jobRow, type NewJob } from '../../store/jobs-repo.js';
import type { Store } from '../../store/store.js';
import type { CardOperationRow, CardRow, CardTransactionRow } from '../../store/tables/cards.js';
import type { InternalAccountRow } from '../../store/tables/internal-accounts.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { applyOperation, directionOf, isOpening, project, SIMULATIONS, type Direction, type FollowUpSimulation, type Ledger, type OpeningKind, type Operation, type OperationKind } from './card-transactions.js';
import { currencyOf, ledgerColumns, ledgerOf, renderCardTransaction } from './render.js';
import { InvalidStateError, NotFoundError, RevokedCredentialsError, ValidationError } from '../shared/errors.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { newId } from '../shared/ids.js';
import { decide, declineBySuffix, type Decision } from './authorization-decisioning.js';
import { accountOf, postAll, type Posting } from '../accounts/internal-accounts.js';
import { balanceDelta, movementsOf } from '../accounts/ledger.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events.js';

export const CARD_SIMULATION_JOB = 'card.simulation';

export interface CardSimulationJob {
  platformId: string;
  cardTransactionId: string;
  operationId: string;
}

export interface AuthorizationInput {
  amount: number;
  /** The document's Currency object; name and symbol are informational, decimals must be the currency's. Undefined: the card's (a balance inquiry has none). */
  currency: { code: string; name?: string | undefined; symbol?: string | undefined; decimals?: number | undefined } | undefined;
  merchant: { descriptor: string; mcc?: string | undefined; country?: string | undefined };
}

export interface Accepted {
  issuerTransactionToken: string;
  cardTransactionId: string;
}

const newIssuerToken = () => `itt_${randomUUID().replace(/-/g, '')}`;
/** An accepted operation as the state machine sees it; an authorization the descriptor declines is known to decline. */
const asOperation = (o: CardOperationRow, row: CardTransactionRow): Operation =>
  isOpening(o.kind)
    ? { kind: o.kind, amount: o.amount, decline: declineBySuffix(descriptorOf(row)) }
    : { kind: o.kind as OperationKind, amount: o.amount };
const descriptorOf = (row: CardTransactionRow): string => (JSON.parse(row.merchant) as { descriptor: string }).descriptor;

/** How long the pull of an authorization with descriptor suffix 005 stays pending (Grid: about 30 s). */
export const DEFAULT_DELAYED_PULL_MS = 30_000;

/**
 * The sandbox card simulators. A call is validated against the transaction's projected state (the
 * landed state plus every accepted, not yet landed operation, in order) and, if it applies, its
 * operation and job commit together; the worker lands it later with {@link landOperations}.
 */
export class CardSimulations {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /**
   * Creates a transaction whose id is allocated now, so later simulations can name it before it
   * lands, opened by `kind`: an authorization, or one of its credit, financial (single-message),
   * credit advice or balance inquiry variants. `tokenId`, the request's token: nothing is accepted once it is revoked (the same
   * statement checks it; see Principal.unconfirmed). `within`: the request's unit of work, when it
   * has one (an Idempotency-Key); without one, on PostgreSQL, the acceptance is one statement.
   */
  async authorize(platformId: string, cardId: string, input: AuthorizationInput, tokenId?: string, within?: UnitOfWork, kind: OpeningKind = 'AUTHORIZATION'): Promise<Accepted> {
    const now = await this.clock.now(platformId);
    const token = newIssuerToken();
    const transaction: AcceptedAuthorizationRows['transaction'] = {
      id: newId('CardTransaction'),
      platform_id: platformId,
      card_id: cardId,
      account_id: null,
      status: 'PENDING',
      direction: directionOf(kind),
      opened_by: kind,
      merchant: JSON.stringify(input.merchant),
      authorized_amount: 0,
      settled_amount: 0,
      refunded_amount: 0,
      settlement_count: 0,
      refund_count: 0,
      last_return_amount: null,
      last_return_prior_status: null,
      issuer_transaction_token: token,
      decline_reason: null,
      next_seq: 1,
      authorized_at: null,
      last_event_at: null,
      created_at: now,
      updated_at: now,
    };
    const operation = newOperation(transaction, kind, now, input.amount, token);
    // The amount is in the smallest unit: a client that counts another number of decimals means another amount.
    const decimals = currencyOf(input.currency?.code ?? '').decimals;
    const decimalsMatch = input.currency?.decimals === undefined || input.currency.decimals === decimals;
    const seen = await repo.acceptAuthorization(within ?? this.store, {
      tokenId,
      currency: input.currency?.code,
      acceptable: decimalsMatch,
      rows: { transaction, operation, job: jobRow(simulationJob(operation), now) },
    });
    if (!seen.live) throw new RevokedCredentialsError(tokenId!);
    if (seen.cardCurrency === undefined) throw new NotFoundError('Card', cardId);
    // A card that is not ACTIVE is no refusal but a decline (CARD_PAUSED), decided when the authorization lands.
    if (input.currency !== undefined && input.currency.code !== seen.cardCurrency) {
      throw new ValidationError([{ field: 'currency.code', constraint: { enum: [seen.cardCurrency] }, message: `must be the card's currency, ${seen.cardCurrency}` }]);
    }
    if (!decimalsMatch) throw new ValidationError([{ field: 'currency.decimals', message: `must be ${decimals}, the number of decimals of ${seen.cardCurrency}` }]);
    return { issuerTransactionToken: token, cardTransactionId: transaction.id };
  }

  /** clearing, return, authorization_expiry, return_reversal or authorization_advice on a transaction of this card. */
  async simulate(
    platformId: string,
    cardId: string,
    name: FollowUpSimulation,
    input: { cardTransactionId: string; amount?: number | undefined },
    within?: UnitOfWork,
  ): Promise<Accepted> {
    const op: Operation = { kind: SIMULATIONS[name], amount: input.amount ?? null };
    return this.store.transaction(async (uow) => {
      const card = await repo.findCard(uow.db, platformId, cardId);
      if (!card) throw new NotFoundError('Card', cardId);
      const row = await repo.lockCardTransaction(uow, platformId, input.cardTransactionId);
      if (!row || row.card_id !== card.id) throw new NotFoundError('CardTransaction', input.cardTransactionId);
      const pending = (await repo.operationsOf(uow.db, [row.id])).filter((o) => o.status === 'PENDING');
      const projected = project(ledgerOf(row), pending.map((o) => asOperation(o, row)));
      const outcome = applyOperation(projected, op);
      if (!outcome.ok) {
        if (outcome.refusal === 'amount') throw new ValidationError([{ field: 'amount', message: outcome.reason }]);
        const landed = projected.status === row.status ? '' : ` once the ${pending.length} operation(s) already accepted land (landed status: ${row.status})`;
        throw new InvalidStateError(`Card transaction ${row.id}: ${outcome.reason}${landed}`, projected.status);
      }
      const token = newIssuerToken();
      await this.enqueue(uow, row, op, token, await this.clock.now(platformId, uow));
      return { issuerTransactionToken: token, cardTransactionId: row.id };
    }, within);
  }


  /** Records an accepted operation and its job in the caller's unit of work (see {@link enqueueOperation}). */
  async enqueue(uow: UnitOfWork, row: CardTransactionRow, op: Operation, token: string, now: number): Promise<string> {
    return (await enqueueOperation(uow, row, op, token, now)).id;
  }
}

/**
 * Records an accepted operation and its job, in the caller's unit of work, without checking
 * state (the callers do), and advances the transaction's `next_seq`.
 */
async function enqueueOperation(uow: UnitOfWork, row: CardTransactionRow, op: Operation, token: string, now: number): Promise<CardOperationRow> {
  const operation = newOperation(row, op.kind, now, op.amount, token);
  await repo.insertCardOperation(uow.db, operation);
  await repo.updateCardTransaction(uow.db, row.id, { next_seq: row.next_seq });
  await enqueueJob(uow, simulationJob(operation), now);
  return operation;
}

/** A PENDING operation appended to the transaction: it takes `row.next_seq`, which advances. */
export function newOperation(row: Pick<CardTransactionRow, 'id' | 'platform_id' | 'next_seq'>, kind: OperationKind, now: number, amount: number | null = null, token = newIssuerToken()): CardOperationRow {
  const operation: CardOperationRow = {
    id: newId('CardOperation'),
    platform_id: row.platform_id,
    card_transaction_id: row.id,
    seq: row.next_seq,
    kind,
    amount,
    issuer_transaction_token: token,
    status: 'PENDING',
    reason: null,
    accepted_at: now,
    processed_at: null,
  };
  row.next_seq += 1;
  return operation;
}

/**
 * The job that lands an operation. Jobs share the transaction id as queue key, so they run in
 * order; a job due later (`runAt`) has none, so it holds up no other.
 */
function simulationJob(operation: CardOperationRow, runAt?: number): NewJob {
  const payload: CardSimulationJob = { platformId: operation.platform_id, cardTransactionId: operation.card_transaction_id, operationId: operation.id };
  return { id: newId('Job'), kind: CARD_SIMULATION_JOB, payload, queueKey: runAt === undefined ? operation.card_transaction_id : null, runAt };
}

export interface LandingOptions {
  now?: number;
  /** How long the pull of a `005` authorization stays pending before it is confirmed. */
  delayedPullMs?: number;
}

/** One transaction as a landing batch sees it; jobs of the batch on the same transaction share it. */
interface Landing {
  /** As it was locked: what the operations were accepted against (the merchant, the cardholder). */
  row: CardTransactionView;
  /** As the batch leaves it. */
  current: CardTransactionRow;
  ledger: Ledger;
  /** Every operation of the transaction, in acceptance order, as the batch leaves them. */
  ops: CardOperationRow[];
  changed: boolean;
}

/**
 * What a landing batch writes, gathered as it decides and written at its end in a few statements
 * whatever the number of jobs (see {@link landOperations}).
 */
class LandingWrites {
  readonly finished: FinishedOperation[] = [];
  readonly inserted: CardOperationRow[] = [];
  readonly jobs: NewJob[] = [];
  readonly events: WebhookEventInput[] = [];
  readonly postings: Posting[] = [];

  async write(uow: UnitOfWork, landings: Iterable<Landing>, now: number, funds: FundingSources): Promise<void> {
    // On PostgreSQL every write here is deferred (UnitOfWork.write) and goes out with COMMIT: the
    // ledger's too when it posts only on the accounts the batch locked (the balances after are
    // theirs moved by the postings, see postAll). The account is locked as the batch is read
    // (readLandingBatch), so from its lock to the commit the landing takes one more round trip
    // (this, with COMMIT) where it took about nine, then three (lock, ledger, the rest).
    await postAll(uow, this.postings, now, funds.locked);
    await repo.insertCardOperations(uow, this.inserted);
    await repo.finishCardOperations(uow, this.finished);
    const changed: CardTransactionChanges[] = [];
    for (const l of landings) {
      if (!l.changed) continue;
      const { platform_id: _p, card_id: _c, customer_id: _cu, merchant: _m, currency: _cur, issuer_transaction_token: _t, list_position: _l, direction: _d, opened_by: _o, ...changes } = l.current;
      changed.push(changes);
    }
    await repo.updateCardTransactions(uow, changed);
    await enqueueJobs(uow, this.jobs, now);
    await recordWebhookEvents(uow, this.events, now);
  }
}

/**
 * Lands the jobs' operations in the worker's batch (its unit of work), in job order: each job's
 * operation, and any operation of the same transaction accepted before it that is still pending, in
 * acceptance order. Each one is re-checked: one that applies updates the transaction, is marked
 * LANDED and records its webhook event; one that no longer applies is marked REJECTED with the
 * reason and changes nothing. An authorization is decided here (see {@link decideAuthorization}):
 * declined, it is marked REJECTED with its reason and the transaction becomes DECLINED, holding
 * nothing, with its webhook. A pull confirmation lands only by its own job, when it is due. An
 * operation that is no longer pending was landed by an earlier job, so running a job twice changes
 * nothing.
 *
 * Set-based: the jobs' transactions (locked), operations and cards are read in one statement on
 * PostgreSQL (readLandingBatch), their funding accounts locked in another, the decisions are taken
 * in memory, and the writes go out a statement per table for the whole batch. On PostgreSQL a landing holds its funding account's row lock until
 * its commit, so every statement after that lock is time every other landing on the account waits;
 * per job that was about 15 round trips. Measured (webhooks bench, one funded account, 16 cards):
 * see the commit that made it set-based.
 */
export async function landOperations(uow: UnitOfWork, jobs: readonly CardSimulationJob[], log: Logger, options: LandingOptions = {}): Promise<void> {
  const now = options.now ?? Date.now();
  const ids = [...new Set(jobs.map((j) => j.cardTransactionId))];
  const landings = new Map<string, Landing>();
  const batch = await repo.readLandingBatch(uow, ids);
  for (const row of batch.transactions) {
    landings.set(row.id, { row, current: { ...row }, ledger: ledgerOf(row), ops: [], changed: false });
  }
  for (const op of batch.operations) landings.get(op.card_transaction_id)?.ops.push(op);
  const funds = await FundingSources.lock(uow, [...landings.values()].filter((l) => l.ledger.status === 'PENDING').map((l) => l.row), batch.cards, batch.accounts);
  const writes = new LandingWrites();
  for (const job of jobs) {
    const landing = landings.get(job.cardTransactionId);
    if (!landing || landing.row.platform_id !== job.platformId) {
      throw new Error(`card transaction ${job.cardTransactionId} of job operation ${job.operationId} does not exist`);
    }
    await landJob(uow, landing, job, funds, writes, log, now, options);
  }
  await writes.write(uow, landings.values(), now, funds);
}

/** Lands one job's operation and the pending ones before it on its transaction (see landOperations). */
async function landJob(uow: UnitOfWork, l: Landing, job: CardSimulationJob, funds: FundingSources, writes: LandingWrites, log: Logger, now: number, options: LandingOptions): Promise<void> {
  const { row, current, ops } = l;
  const mine = ops.find((o) => o.id === job.operationId);
  if (!mine || mine.status !== 'PENDING') return;
  const queue = ops.filter((op) => op.status === 'PENDING' && op.seq <= mine.seq && (op.kind !== 'PULL_CONFIRMATION' || op === mine));
  for (let op = queue.shift(); op; op = queue.shift()) {
    const operation = asOperation(op, row);
    let decision: Decision | undefined;
    if (isOpening(op.kind) && l.ledger.status === 'PENDING') {
      decision = await funds.decide(uow, row, op.amount ?? 0, now);
      if (!decision.approved) operation.decline = decision.reason;
    }
    const outcome = applyOperation(l.ledger, operation);
    op.processed_at = now;
    if (!outcome.ok) {
      op.status = 'REJECTED';
      op.reason = outcome.reason;
      finish(writes, op);
      log.warn({ cardTransactionId: row.id, operationId: op.id, kind: op.kind, reason: op.reason }, 'card operation rejected: it no longer applies');
      continue;
    }
    const before = l.ledger;
    l.ledger = outcome.next;
    l.changed = true;
    op.amount = outcome.amount;
    if (decision) {
      Object.assign(current, { account_id: decision.accountId, authorized_at: now, created_at: now });
      // A transaction appears when its authorization lands (approved or declined); its creation time is that moment.
      uow.listAtCommit(row.platform_id, 'card_transactions', row.id);
    }
    if (decision && !decision.approved) {
      op.status = 'REJECTED';
      op.reason = `${decision.reason}: ${decision.message}`;
      current.decline_reason = decision.reason;
    } else {
      op.status = 'LANDED';
      op.reason = null;
    }
    // Until it has a funding source, a transaction accepted before migration 010 uses its cardholder's account.
    const accountId = current.account_id ?? (await accountOf(uow, row.platform_id, row.customer_id, row.currency, now)).id;
    Object.assign(current, ledgerColumns(l.ledger), { account_id: accountId, last_event_at: now, updated_at: now });
    finish(writes, op);
    if (decision?.approved && decision.pull !== 'CONFIRMED') {
      // The pull's report is an operation of its own: confirmed by a job due after the delay (005),
      // or reported failed at once, in this commit (006), so no simulator call can slip in between.
      const report = newOperation(current, decision.pull === 'DELAYED' ? 'PULL_CONFIRMATION' : 'PULL_FAILURE', now);
      ops.push(report);
      writes.inserted.push(report);
      if (decision.pull === 'DELAYED') {
        const delay = options.delayedPullMs ?? DEFAULT_DELAYED_PULL_MS;
        // Due on the platform's clock (an advance pulls it forward); `now` is that clock's, the job's runAt real time.
        writes.jobs.push({ ...simulationJob(report, Date.now() + delay), platformId: row.platform_id, platformDueAt: now + delay });
      } else {
        queue.push(report);
      }
    }
    writes.events.push({
      platformId: row.platform_id,
      type: `CARD_TRANSACTION.${l.ledger.status}`,
      fields: {
        data: renderCardTransaction(current, row.platform_customer_id, ops),
        operation: { kind: op.kind, issuerTransactionToken: op.issuer_transaction_token, amount: op.amount },
      },
    });
    const movements = movementsOf(before, l.ledger);
    if (movements.length > 0) {
      writes.postings.push({ platformId: row.platform_id, accountId, movements, cardTransactionId: row.id, cardOperationId: op.id });
      funds.spend(accountId, balanceDelta(movements).available);
    }
  }
}

/** Records an operation's end; one this batch inserted is written as it ends instead. */
function finish(writes: LandingWrites, op: CardOperationRow): void {
  if (writes.inserted.includes(op)) return;
  writes.finished.push({ id: op.id, status: op.status as FinishedOperation['status'], amount: op.amount, reason: op.reason, processed_at: op.processed_at! });
}

/**
 * The funding accounts of the authorizations a batch decides, read and (on PostgreSQL) locked until
 * the commit in one statement, so two authorizations landing at once cannot both spend the same
 * available balance; their balances are then followed in memory as the batch spends them.
 */
class FundingSources {
  /** Movements of the batch on accounts it had not locked, not yet written. */
  private readonly unposted = new Map<string, number>();
  /** Every account the batch locked, as read when locked (nothing is written to them before the batch's end). */
  readonly locked = new Map<string, InternalAccountRow>();

  private constructor(
    private readonly cards: Map<string, CardRow>,
    private readonly accounts: Map<string, InternalAccountRow>,
    private readonly available: Map<string, number>,
  ) {
    for (const a of accounts.values()) this.locked.set(a.id, a);
  }

  /** `locked`: funding sources readLandingBatch locked already (PostgreSQL); any other is locked here. */
  static async lock(uow: UnitOfWork, deciding: readonly CardTransactionRow[], read: readonly CardRow[], locked: readonly InternalAccountRow[]): Promise<FundingSources> {
    const decidingCards = new Set(deciding.map((r) => r.card_id));
    const cards = new Map(read.filter((c) => decidingCards.has(c.id)).map((c) => [c.id, c]));
    const sources = new Set<string>();
    for (const card of cards.values()) for (const id of JSON.parse(card.funding_sources) as string[]) sources.add(id);
    const accounts = new Map(locked.filter((a) => sources.has(a.id)).map((a) => [a.id, a]));
    const missing = [...sources].filter((id) => !accounts.has(id));
    for (const a of missing.length > 0 ? await accountsRepo.lockAccounts(uow, missing) : []) accounts.set(a.id, a);
    return new FundingSources(cards, accounts, new Map([...accounts.values()].map((a) => [a.id, Number(a.available_balance)])));
  }

  /**
   * Decides an authorization as it lands, from the card's state and limit, the descriptor and its funding
   * sources' balances as they are now: the card's sources that are the cardholder's own active
   * accounts in the transaction's currency. A card with none draws on its cardholder's account in
   * that currency (locked now).
   */
  async decide(uow: UnitOfWork, row: CardTransactionRow, amount: number, now: number): Promise<Decision> {
    const card = this.cards.get(row.card_id);
    if (!card || card.platform_id !== row.platform_id) throw new Error(`card ${row.card_id} of card transaction ${row.id} does not exist`);
    const eligible = (a: InternalAccountRow | undefined) =>
      a !== undefined && a.platform_id === row.platform_id && a.customer_id === row.customer_id && a.currency === row.currency && a.status === 'ACTIVE';
    let candidates = (JSON.parse(card.funding_sources) as string[]).filter((id) => eligible(this.accounts.get(id)));
    if (candidates.length === 0) {
      const fallback = await accountOf(uow, row.platform_id, row.customer_id, row.currency, now);
      if (!this.available.has(fallback.id)) {
        const [locked] = await accountsRepo.lockAccounts(uow, [fallback.id]);
        this.locked.set(locked!.id, locked!);
        // What this batch has moved on it is not written yet.
        this.available.set(fallback.id, Number(locked!.available_balance) + (this.unposted.get(fallback.id) ?? 0));
      }
      candidates = [fallback.id];
    }
    return decide(
      { cardState: card.state, maxSpendPerTransaction: card.max_spend_per_transaction, descriptor: descriptorOf(row), amount, candidates, direction: row.direction as Direction },
      async (id) => this.available.get(id)!,
    );
  }

  /** An account's available balance moved by `delta` (its postings are written at the batch's end). */
  spend(accountId: string, delta: number): void {
    const balance = this.available.get(accountId);
    if (balance !== undefined) this.available.set(accountId, balance + delta);
    else this.unposted.set(accountId, (this.unposted.get(accountId) ?? 0) + delta);
  }
}
