/**
 * The sandbox's transfer outcomes, pure: the last three digits of the external account's primary
 * identifier (account number, IBAN, CLABE, PIX key, wallet address, ...: the field
 * external-accounts/account-types.ts `primaryIdentifier` names for its accountInfo type) decide
 * how a transfer in or out ends.
 */
import { testSuffix } from '../external-accounts/account-types.js';

export type TransferOutcome =
  /** 002: insufficient funds at the bank; fails as it is made. */
  | 'INSUFFICIENT_FUNDS'
  /** 003: the account is closed or invalid; fails as it is made. */
  | 'ACCOUNT_CLOSED'
  /** 004: accepted, then rejected by the bank. */
  | 'REJECTED'
  /** 005: stays pending about 30 s (on the platform's clock), then fails. */
  | 'DELAYED_FAILURE'
  /** Any other: completes. */
  | 'SUCCESS';

/** How long a 005 transfer stays PENDING before it fails, on the platform's clock. */
export const DELAYED_FAILURE_MS = 30_000;

/** A production platform has no magic suffixes: every transfer succeeds. */
export function transferOutcome(identifier: string | null, sandbox: boolean): TransferOutcome {
  if (!sandbox || identifier === null) return 'SUCCESS';
  switch (testSuffix(identifier)) {
    case '002':
      return 'INSUFFICIENT_FUNDS';
    case '003':
      return 'ACCOUNT_CLOSED';
    case '004':
      return 'REJECTED';
    case '005':
      return 'DELAYED_FAILURE';
    default:
      return 'SUCCESS';
  }
}

/**
 * The sandbox's outcomes of an executed quote, by the destination account's last three digits (a
 * different table from transfers'): 002 execution failed (at once), 003 a long payment (completes
 * after LONG_PAYMENT_MS of platform time), 004 delivery failed, 005 returned after completing,
 * 006 cancelled by the user, 007 payout and refund failed; any other succeeds.
 */
export type QuoteOutcome = 'QUOTE_EXECUTION_FAILED' | 'LONG_PAYMENT' | 'DELIVERY_FAILED' | 'RETURNED' | 'USER_CANCELLED' | 'PAYOUT_AND_REFUND_FAILED' | 'SUCCESS';

/** How long a 003 quote payment stays PENDING before it completes, on the platform's clock (the guide's "about 6 minutes"). */
export const LONG_PAYMENT_MS = 6 * 60 * 1000;

const QUOTE_SUFFIXES: Record<string, QuoteOutcome> = {
  '002': 'QUOTE_EXECUTION_FAILED',
  '003': 'LONG_PAYMENT',
  '004': 'DELIVERY_FAILED',
  '005': 'RETURNED',
  '006': 'USER_CANCELLED',
  '007': 'PAYOUT_AND_REFUND_FAILED',
};

/**
 * An incoming UMA payment (POST /sandbox/uma/receive): as the sender's sandbox address says (long
 * pending: completes after LONG_PAYMENT_MS; compliance failure: fails), or waiting for the platform's
 * approve / reject when its config requires counterparty fields for the currency.
 */
export type UmaIncomingOutcome = 'SUCCESS' | 'UMA_LONG_PENDING' | 'UMA_COMPLIANCE_FAILED' | 'AWAITING_APPROVAL';

/** A production platform has no magic suffixes: every quote payment succeeds. */
export function quoteOutcome(identifier: string | null, sandbox: boolean): QuoteOutcome {
  if (!sandbox || identifier === null) return 'SUCCESS';
  return QUOTE_SUFFIXES[testSuffix(identifier) ?? ''] ?? 'SUCCESS';
}

/** An outcome that fails the transfer as it is made (nothing is held, nothing lands later). */
export const failsAtOnce = (o: TransferOutcome): boolean => o === 'INSUFFICIENT_FUNDS' || o === 'ACCOUNT_CLOSED';

/** The failureReason of a failed transfer, from the document's enums for each type. */
export function failureReasonOf(type: 'INCOMING' | 'OUTGOING', why: TransferOutcome | QuoteOutcome | UmaIncomingOutcome | 'NO_AVAILABLE_BALANCE' | 'CANCELLED' | 'REJECTED_BY_PLATFORM'): string {
  // A compliance failure, or the platform's own screening rejecting it (POST .../reject).
  if (type === 'INCOMING') return why === 'UMA_COMPLIANCE_FAILED' || why === 'REJECTED_BY_PLATFORM' ? 'COMPLIANCE_REJECTED' : 'COLLECTION_FAILED';
  switch (why) {
    case 'UMA_COMPLIANCE_FAILED':
      return 'COMPLIANCE_REJECTED';
    case 'DELIVERY_FAILED':
      return 'ACCOUNT_CANNOT_RECEIVE';
    case 'RETURNED':
      return 'PAYOUT_RETURNED';
    case 'ACCOUNT_CLOSED':
      return 'ACCOUNT_INVALID';
    case 'REJECTED':
      return 'ACCOUNT_CANNOT_RECEIVE';
    default:
      // Insufficient funds, the 005 timeout, a cancellation: the transfer could not be carried out (held funds refunded).
      return 'QUOTE_EXECUTION_FAILED';
  }
}
