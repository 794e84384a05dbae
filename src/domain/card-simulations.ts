import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Logger } from '../logger.js';
import * as accountsRepo from '../store/accounts-repo.js';
import * as repo from '../store/cards-repo.js';
import { enqueueJob } from '../store/jobs-repo.js';
import { listAtCommit } from '../store/list-clock.js';
import type { Engine, Store, Trx } from '../store/store.js';
import type { CardOperationRow, CardTransactionRow } from '../store/tables/cards.js';
import { applyOperation, project, SIMULATIONS, type Operation, type OperationKind, type SimulationName } from './card-transactions.js';
import { currencyOf, ledgerColumns, ledgerOf, renderCardTransaction } from './cards.js';
import { InvalidStateError, NotFoundError, ValidationError } from './errors.js';
import { newId } from './ids.js';
import { decide, declineBySuffix, type Decision } from './authorization-decisioning.js';
import { accountOf, post } from './internal-accounts.js';
import { movementsOf } from './ledger.js';
import { recordWebhookEvent } from './webhook-events.js';

export const CARD_SIMULATION_JOB = 'card.simulation';

export interface CardSimulationJob {
  platformId: string;
  cardTransactionId: string;
  operationId: string;
}

export interface AuthorizationInput {
  amount: number;
  /** The document's Currency object; name and symbol are informational, decimals must be the currency's. */
  currency: { code: string; name?: string | undefined; symbol?: string | undefined; decimals?: number | undefined };
  merchant: { descriptor: string; mcc?: string | undefined; country?: string | undefined };
}

export interface Accepted {
  issuerTransactionToken: string;
  cardTransactionId: string;
}

const newIssuerToken = () => `itt_${randomUUID().replace(/-/g, '')}`;
/** An accepted operation as the state machine sees it; an authorization the descriptor declines is known to decline. */
const asOperation = (o: CardOperationRow, row: CardTransactionRow): Operation =>
  o.kind === 'AUTHORIZATION'
    ? { kind: 'AUTHORIZATION', amount: o.amount, decline: declineBySuffix(descriptorOf(row)) }
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
  constructor(private readonly store: Store, private readonly jobSignal: EventEmitter) {}

  /** Creates a transaction whose id is allocated now, so later simulations can name it before it lands. */
  async authorize(platformId: string, cardId: string, input: AuthorizationInput): Promise<Accepted> {
    const accepted = await this.store.transaction(async (trx) => {
      const card = await repo.findCard(trx, platformId, cardId);
      if (!card) throw new NotFoundError('Card', cardId);
      // A card that is not ACTIVE is no refusal but a decline (CARD_PAUSED), decided when the authorization lands.
      if (input.currency.code !== card.currency) {
        throw new ValidationError([{ field: 'currency.code', constraint: { enum: [card.currency] }, message: `must be the card's currency, ${card.currency}` }]);
      }
      const decimals = currencyOf(card.currency).decimals;
      // The amount is in the smallest unit: a client that counts another number of decimals means another amount.
      if (input.currency.decimals !== undefined && input.currency.decimals !== decimals) {
        throw new ValidationError([{ field: 'currency.decimals', message: `must be ${decimals}, the number of decimals of ${card.currency}` }]);
      }
      const now = Date.now();
      const token = newIssuerToken();
      const row: CardTransactionRow = {
        id: newId('CardTransaction'),
        platform_id: platformId,
        card_id: card.id,
        customer_id: card.cardholder_id,
        account_id: null,
        status: 'PENDING',
        merchant: JSON.stringify(input.merchant),
        currency: card.currency,
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
      await repo.insertCardTransaction(trx, row);
      await this.enqueue(trx, row, { kind: 'AUTHORIZATION', amount: input.amount }, token, now);
      return { issuerTransactionToken: token, cardTransactionId: row.id };
    });
    this.store.afterCommit(() => this.jobSignal.emit('enqueued'));
    return accepted;
  }

  /** clearing, return, authorization_expiry or return_reversal on a transaction of this card. */
  async simulate(
    platformId: string,
    cardId: string,
    name: Exclude<SimulationName, 'authorization'>,
    input: { cardTransactionId: string; amount?: number | undefined },
  ): Promise<Accepted> {
    const op: Operation = { kind: SIMULATIONS[name], amount: input.amount ?? null };
    const accepted = await this.store.transaction(async (trx) => {
      const card = await repo.findCard(trx, platformId, cardId);
      if (!card) throw new NotFoundError('Card', cardId);
      const row = await repo.lockCardTransaction(trx, this.store.engine, platformId, input.cardTransactionId);
      if (!row || row.card_id !== card.id) throw new NotFoundError('CardTransaction', input.cardTransactionId);
      const pending = (await repo.operationsOf(trx, [row.id])).filter((o) => o.status === 'PENDING');
      const projected = project(ledgerOf(row), pending.map((o) => asOperation(o, row)));
      const outcome = applyOperation(projected, op);
      if (!outcome.ok) {
        if (outcome.refusal === 'amount') throw new ValidationError([{ field: 'amount', message: outcome.reason }]);
        const landed = projected.status === row.status ? '' : ` once the ${pending.length} operation(s) already accepted land (landed status: ${row.status})`;
        throw new InvalidStateError(`Card transaction ${row.id}: ${outcome.reason}${landed}`, projected.status);
      }
      const token = newIssuerToken();
      await this.enqueue(trx, row, op, token, Date.now());
      return { issuerTransactionToken: token, cardTransactionId: row.id };
    });
    this.store.afterCommit(() => this.jobSignal.emit('enqueued'));
    return accepted;
  }

  /** Records an accepted operation and its job inside the caller's transaction (see {@link enqueueOperation}). */
  async enqueue(trx: Trx, row: CardTransactionRow, op: Operation, token: string, now: number): Promise<string> {
    return (await enqueueOperation(trx, row, op, token, now)).id;
  }
}

/**
 * Records an accepted operation and its job, inside the caller's transaction, without checking
 * state (the callers do). Jobs share the transaction id as queue key, so they run in order; a job
 * due later (`runAt`) has none, so it holds up no other.
 */
async function enqueueOperation(trx: Trx, row: CardTransactionRow, op: Operation, token: string, now: number, runAt?: number): Promise<CardOperationRow> {
  const operation = await insertOperation(trx, row, op, token, now);
  const payload: CardSimulationJob = { platformId: row.platform_id, cardTransactionId: row.id, operationId: operation.id };
  await enqueueJob(trx, { id: newId('Job'), kind: CARD_SIMULATION_JOB, payload, queueKey: runAt === undefined ? row.id : null, runAt }, now);
  return operation;
}

/** Appends a PENDING operation to the transaction and advances `row.next_seq`. */
async function insertOperation(trx: Trx, row: CardTransactionRow, op: Operation, token: string, now: number): Promise<CardOperationRow> {
  const operation: CardOperationRow = {
    id: newId('CardOperation'),
    platform_id: row.platform_id,
    card_transaction_id: row.id,
    seq: row.next_seq,
    kind: op.kind,
    amount: op.amount,
    issuer_transaction_token: token,
    status: 'PENDING',
    reason: null,
    accepted_at: now,
    processed_at: null,
  };
  await repo.insertCardOperation(trx, operation);
  row.next_seq += 1;
  await repo.updateCardTransaction(trx, row.id, { next_seq: row.next_seq });
  return operation;
}

export interface LandingOptions {
  now?: number;
  /** How long the pull of a `005` authorization stays pending before it is confirmed. */
  delayedPullMs?: number;
}

/**
 * Lands the job's operation, and any operation of the same transaction accepted before it that is
 * still pending, in acceptance order, inside the worker's commit transaction. Each one is re-checked:
 * one that applies updates the transaction, is marked LANDED and records its webhook event; one that
 * no longer applies is marked REJECTED with the reason and changes nothing. An authorization is
 * decided here (see {@link decideAuthorization}): declined, it is marked REJECTED with its reason and
 * the transaction becomes DECLINED, holding nothing, with its webhook. A pull confirmation lands only
 * by its own job, when it is due. An operation that is no longer pending was landed by an earlier
 * job, so running a job twice changes nothing.
 */
export async function landOperations(trx: Trx, engine: Engine, job: CardSimulationJob, log: Logger, options: LandingOptions = {}): Promise<void> {
  const now = options.now ?? Date.now();
  const row = await repo.lockCardTransaction(trx, engine, job.platformId, job.cardTransactionId);
  if (!row) throw new Error(`card transaction ${job.cardTransactionId} of job operation ${job.operationId} does not exist`);
  const ops = await repo.operationsOf(trx, [row.id]);
  const mine = ops.find((o) => o.id === job.operationId);
  if (!mine || mine.status !== 'PENDING') return;
  let ledger = ledgerOf(row);
  const current: CardTransactionRow = { ...row };
  let platformCustomerId: string | undefined;
  const queue = ops.filter((op) => op.status === 'PENDING' && op.seq <= mine.seq && (op.kind !== 'PULL_CONFIRMATION' || op === mine));
  for (let op = queue.shift(); op; op = queue.shift()) {
    const operation = asOperation(op, row);
    let decision: Decision | undefined;
    if (op.kind === 'AUTHORIZATION' && ledger.status === 'PENDING') {
      decision = await decideAuthorization(trx, engine, row, op.amount ?? 0, now);
      if (!decision.approved) operation.decline = decision.reason;
    }
    const outcome = applyOperation(ledger, operation);
    op.processed_at = now;
    if (!outcome.ok) {
      op.status = 'REJECTED';
      op.reason = outcome.reason;
      await repo.finishCardOperation(trx, op.id, { status: 'REJECTED', amount: op.amount, reason: op.reason, processed_at: now });
      log.warn({ cardTransactionId: row.id, operationId: op.id, kind: op.kind, reason: op.reason }, 'card operation rejected: it no longer applies');
      continue;
    }
    const before = ledger;
    ledger = outcome.next;
    op.amount = outcome.amount;
    if (decision) {
      Object.assign(current, { account_id: decision.accountId, authorized_at: now, created_at: now });
      // A transaction appears when its authorization lands (approved or declined); its creation time is that moment.
      listAtCommit(trx, row.platform_id, 'card_transactions', row.id);
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
    const accountId = current.account_id ?? (await accountOf(trx, row.platform_id, row.customer_id, row.currency, now)).id;
    Object.assign(current, ledgerColumns(ledger), { account_id: accountId, last_event_at: now, updated_at: now });
    await repo.finishCardOperation(trx, op.id, { status: op.status as 'LANDED' | 'REJECTED', amount: op.amount, reason: op.reason, processed_at: now });
    if (decision?.approved && decision.pull !== 'CONFIRMED') {
      // The pull's report is an operation of its own: confirmed by a job due after the delay (005),
      // or reported failed at once, in this commit (006), so no simulator call can slip in between.
      if (decision.pull === 'DELAYED') {
        const runAt = now + (options.delayedPullMs ?? DEFAULT_DELAYED_PULL_MS);
        ops.push(await enqueueOperation(trx, current, { kind: 'PULL_CONFIRMATION', amount: null }, newIssuerToken(), now, runAt));
      } else {
        const failure = await insertOperation(trx, current, { kind: 'PULL_FAILURE', amount: null }, newIssuerToken(), now);
        ops.push(failure);
        queue.push(failure);
      }
    }
    platformCustomerId ??= await repo.platformCustomerIdOf(trx, row.customer_id);
    await recordWebhookEvent(
      trx,
      {
        platformId: row.platform_id,
        type: `CARD_TRANSACTION.${ledger.status}`,
        fields: {
          data: renderCardTransaction(current, platformCustomerId, ops),
          operation: { kind: op.kind, issuerTransactionToken: op.issuer_transaction_token, amount: op.amount },
        },
      },
      now,
    );
    const movements = movementsOf(before, ledger);
    if (movements.length > 0) await post(trx, { platformId: row.platform_id, accountId, movements, cardTransactionId: row.id, cardOperationId: op.id }, now);
  }
  const { id: _id, platform_id: _p, card_id: _c, customer_id: _cu, ...changes } = current;
  await repo.updateCardTransaction(trx, row.id, changes);
}

/**
 * Decides an authorization as it lands, from the card's state, the descriptor and its funding
 * sources' balances as they are now. The sources are the card's that are the cardholder's own
 * active accounts in the transaction's currency, read and (on PostgreSQL) locked until the commit
 * in one statement, so two authorizations landing at once cannot both spend the same available
 * balance; a card with none draws on its cardholder's account in that currency.
 */
async function decideAuthorization(trx: Trx, engine: Engine, row: CardTransactionRow, amount: number, now: number): Promise<Decision> {
  const card = await repo.findCard(trx, row.platform_id, row.card_id);
  if (!card) throw new Error(`card ${row.card_id} of card transaction ${row.id} does not exist`);
  const sources = JSON.parse(card.funding_sources) as string[];
  const balances = new Map<string, number>();
  for (const account of await accountsRepo.lockAccounts(trx, engine, row.platform_id, sources)) {
    if (account.customer_id === row.customer_id && account.currency === row.currency && account.status === 'ACTIVE') balances.set(account.id, Number(account.available_balance));
  }
  let candidates = sources.filter((id) => balances.has(id));
  if (candidates.length === 0) {
    const fallback = await accountOf(trx, row.platform_id, row.customer_id, row.currency, now);
    const [locked] = await accountsRepo.lockAccounts(trx, engine, row.platform_id, [fallback.id]);
    balances.set(fallback.id, Number(locked!.available_balance));
    candidates = [fallback.id];
  }
  return decide({ cardState: card.state, descriptor: descriptorOf(row), amount, candidates }, async (id) => balances.get(id)!);
}
