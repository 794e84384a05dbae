/**
 * A quote paid inside the platform: its destination an internal account of the platform (a
 * customer's or its own) or the UMA address of one of its customers. The sender's OutgoingTransaction
 * names the receiving internal account (external_account_id); when it completes, that account is
 * credited the receiving amount by an IncomingTransaction of the recipient, in the same commit.
 */
import { findAccount, findAccountOf } from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { findPlatformAccount } from '../../store/platform-accounts-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import { findCustomerByUma } from '../../store/quotes-repo.js';
import type { Executor } from '../../store/store.js';
import type { PaymentTransactionRow } from '../../store/tables/payment-transactions.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { accountTypeOf } from '../accounts/account-currencies.js';
import { newId } from '../shared/ids.js';
import type { TransferWrites } from './payment-lifecycle.js';
import { renderPaymentTransaction } from './render.js';

/** The internal account a quote pays into. */
export interface InternalRecipient {
  accountId: string;
  /** The recipient customer; null for the platform's own account. */
  customerId: string | null;
  currency: string;
  status: string;
}

const ID_PREFIX = 'InternalAccount:';

/** An internal account of this platform by id: a customer's, or the platform's own; undefined for any other. */
export async function internalAccountRecipient(db: Executor, platformId: string, accountId: string): Promise<InternalRecipient | undefined> {
  const account = await findAccount(db, platformId, accountId);
  if (account) return { accountId: account.id, customerId: account.customer_id, currency: account.currency, status: account.status };
  const own = await findPlatformAccount(db, platformId, accountId);
  return own && { accountId: own.id, customerId: null, currency: own.currency, status: own.status };
}

/** The account in `currency` of the platform's customer with this UMA address; undefined when no customer has it or holds no account in it. */
export async function umaCustomerRecipient(db: Executor, platformId: string, umaAddress: string, currency: string): Promise<InternalRecipient | undefined> {
  const customer = await findCustomerByUma(db, platformId, umaAddress);
  if (!customer) return undefined;
  const account = await findAccountOf(db, customer.id, accountTypeOf(currency), currency);
  if (!account || account.platform_id !== platformId) return undefined;
  return { accountId: account.id, customerId: customer.id, currency: account.currency, status: account.status };
}

/** The receiving internal account of a quote payment, when it is paid inside the platform. */
export const internalRecipientOf = (row: Pick<repo.PaymentTransactionView, 'type' | 'quote_id' | 'external_account_id'>): string | undefined =>
  row.type === 'OUTGOING' && row.quote_id && row.external_account_id.startsWith(ID_PREFIX) ? row.external_account_id : undefined;

/**
 * In the completing commit of a quote payment paid inside the platform: the recipient's
 * IncomingTransaction, COMPLETED, crediting the receiving account the quote's receiving amount, with
 * INCOMING_PAYMENT.COMPLETED (and the account's INTERNAL_ACCOUNT.BALANCE_UPDATED). Anything else: nothing.
 * The credit and the event go in the landing's `writes` (TransferWrites), which locks the receiving
 * account with the batch's others, in id order, as it writes them.
 */
export async function creditInternalRecipient(uow: UnitOfWork, row: repo.PaymentTransactionView, now: number, writes: TransferWrites): Promise<void> {
  const accountId = internalRecipientOf(row);
  if (accountId === undefined) return;
  const recipient = await internalAccountRecipient(uow.db, row.platform_id, accountId);
  if (!recipient) throw new Error(`the receiving internal account ${accountId} of ${row.id} is gone`);
  const customerId = recipient.customerId;
  const customer = customerId === null ? undefined : await findCustomer(uow.db, row.platform_id, customerId);
  const amount = Number(row.received_amount);
  const id = newId('Transaction');
  const incoming: repo.PaymentTransactionView = {
    id,
    platform_id: row.platform_id,
    customer_id: customerId,
    type: 'INCOMING',
    direction: 'CREDIT',
    status: 'COMPLETED',
    internal_account_id: accountId,
    // The sender's internal account: the incoming side's source.
    external_account_id: row.internal_account_id,
    external_identifier: null,
    currency: row.received_currency!,
    amount,
    payment_rail: null,
    rail_selection_mode: null,
    remittance_information: row.remittance_information,
    purpose_of_payment: null,
    outcome: 'SUCCESS',
    failure_reason: null,
    refund: null,
    reference: `${row.reference}-IN`,
    receipt_delivery_confirmed_at: null,
    settled_at: now,
    created_at: now,
    updated_at: now,
    counterparty_uma: null,
    platform_customer_id: customer?.platform_customer_id ?? null,
  };
  const { platform_customer_id: _, ...stored } = incoming;
  await repo.insertPaymentTransaction(uow, stored satisfies PaymentTransactionRow);
  writes.post(incoming, [{ kind: 'TRANSFER_IN_CREDIT', amount }]);
  writes.events.push({ platformId: row.platform_id, type: 'INCOMING_PAYMENT.COMPLETED', fields: { data: renderPaymentTransaction(incoming) } });
}
