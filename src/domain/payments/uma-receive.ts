import { findAccountOf } from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import { findCustomerByUma } from '../../store/quotes-repo.js';
import type { Store } from '../../store/store.js';
import type { PaymentTransactionRow } from '../../store/tables/payment-transactions.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookConfig } from '../../store/webhooks-repo.js';
import { accountTypeOf } from '../accounts/account-currencies.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { lookupableId, NotFoundError, PaymentRefusedError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isUmaAddress, sandboxUmaAddress } from '../uma/sandbox-uma.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import { paymentEvent, TRANSFER_SETTLEMENT_JOB, type TransferSettlementJob } from './payment-lifecycle.js';
import { renderPaymentTransaction, type PaymentTransaction } from './render.js';
import { LONG_PAYMENT_MS, type UmaIncomingOutcome } from './transfer-outcomes.js';

export interface UmaReceiveInput {
  senderUmaAddress: string;
  receiverUmaAddress?: string | undefined;
  customerId?: string | undefined;
  receivingCurrencyCode: string;
  receivingCurrencyAmount: number;
}

/**
 * POST /sandbox/uma/receive: an incoming UMA payment from a sandbox address to a customer of the
 * platform, an IncomingTransaction to the customer's internal account in the receiving currency.
 * It lands through the transfers' settlement job (credited on completion), as the sender's address
 * says; when the platform's config asks counterparty fields for the currency it waits instead for
 * POST /transactions/{id}/approve or /reject.
 */
export class UmaReceiveService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  receive(platformId: string, input: UmaReceiveInput, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.store.transaction(async (uow) => {
      const errors = [];
      if (!isUmaAddress(input.senderUmaAddress)) errors.push({ field: 'senderUmaAddress', message: 'must be $user@domain' });
      if (input.receiverUmaAddress !== undefined && !isUmaAddress(input.receiverUmaAddress)) errors.push({ field: 'receiverUmaAddress', message: 'must be $user@domain' });
      if (input.receiverUmaAddress === undefined && input.customerId === undefined) errors.push({ field: 'customerId', message: 'or receiverUmaAddress is required: who receives the payment' });
      if (errors.length > 0) throw new ValidationError(errors);
      const sender = sandboxUmaAddress(input.senderUmaAddress);
      if (!sender) throw new NotFoundError('UmaAddress', input.senderUmaAddress);

      const customerId = input.customerId ?? (await findCustomerByUma(uow.db, platformId, input.receiverUmaAddress!))?.id;
      const customer = customerId !== undefined && lookupableId(customerId) ? await findCustomer(uow.db, platformId, customerId) : undefined;
      if (!customer || customer.is_deleted === 1) {
        if (input.customerId !== undefined) throw new NotFoundError('Customer', input.customerId);
        throw new NotFoundError('UmaAddress', input.receiverUmaAddress!);
      }
      if (input.customerId !== undefined && input.receiverUmaAddress !== undefined && customer.uma_address?.toLowerCase() !== input.receiverUmaAddress.toLowerCase()) {
        throw new ValidationError([{ field: 'receiverUmaAddress', message: 'is not the UMA address of customerId' }]);
      }
      const currency = input.receivingCurrencyCode;
      const account = await findAccountOf(uow.db, customer.id, accountTypeOf(currency), currency);
      if (!account || account.platform_id !== platformId) {
        throw new PaymentRefusedError('INVALID_CURRENCY', `The customer has no internal account in ${currency}`, [{ field: 'receivingCurrencyCode', message: `the customer holds no ${currency} internal account` }]);
      }

      const now = await this.clock.now(platformId, uow);
      const outcome: UmaIncomingOutcome =
        sender.behaviour === 'COMPLIANCE_FAILURE' ? 'UMA_COMPLIANCE_FAILED' : sender.behaviour === 'LONG_PENDING' ? 'UMA_LONG_PENDING' : (await needsApproval(uow, platformId, currency)) ? 'AWAITING_APPROVAL' : 'SUCCESS';
      const row: repo.PaymentTransactionView = {
        id: newId('Transaction'),
        platform_id: platformId,
        customer_id: customer.id,
        type: 'INCOMING',
        direction: 'CREDIT',
        status: 'PENDING',
        internal_account_id: account.id,
        external_account_id: sender.address,
        external_identifier: sender.address,
        currency,
        amount: input.receivingCurrencyAmount,
        payment_rail: null,
        rail_selection_mode: null,
        remittance_information: null,
        purpose_of_payment: null,
        outcome,
        failure_reason: null,
        refund: null,
        reference: `UMA-${newId('Transaction').slice(-12).toUpperCase()}`,
        receipt_delivery_confirmed_at: null,
        settled_at: null,
        created_at: now,
        updated_at: now,
        counterparty_uma: sender.address,
        platform_customer_id: customer.platform_customer_id ?? null,
      };
      const { platform_customer_id: _, ...stored } = row;
      await repo.insertPaymentTransaction(uow, stored satisfies PaymentTransactionRow);
      const rendered = renderPaymentTransaction(row);
      await recordWebhookEvent(uow, { platformId, type: paymentEvent('INCOMING', 'PENDING'), fields: { data: rendered } }, now);
      if (outcome !== 'AWAITING_APPROVAL') {
        const payload: TransferSettlementJob = { platformId, transactionId: row.id };
        // A long-pending sender's payment lands LONG_PAYMENT_MS later on the platform's clock.
        const delay = outcome === 'UMA_LONG_PENDING' ? LONG_PAYMENT_MS : 0;
        await enqueueJob(uow, { id: newId('Job'), kind: TRANSFER_SETTLEMENT_JOB, payload, queueKey: row.id, runAt: Date.now() + delay, platformId, platformDueAt: now + delay }, now);
      }
      return rendered;
    }, within);
  }
}

/** Whether the platform's config lists counterparty fields for the currency: its screening then approves each payment. */
async function needsApproval(uow: UnitOfWork, platformId: string, currency: string): Promise<boolean> {
  const json = (await findWebhookConfig(uow.db, platformId))?.supported_currencies;
  if (!json) return false;
  const entry = (JSON.parse(json) as { currencyCode: string; requiredCounterpartyFields?: unknown[] }[]).find((c) => c.currencyCode === currency);
  return (entry?.requiredCounterpartyFields?.length ?? 0) > 0;
}
