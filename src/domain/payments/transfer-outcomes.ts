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

/** An outcome that fails the transfer as it is made (nothing is held, nothing lands later). */
export const failsAtOnce = (o: TransferOutcome): boolean => o === 'INSUFFICIENT_FUNDS' || o === 'ACCOUNT_CLOSED';

/** The failureReason of a failed transfer, from the document's enums for each type. */
export function failureReasonOf(type: 'INCOMING' | 'OUTGOING', why: TransferOutcome | 'NO_AVAILABLE_BALANCE' | 'CANCELLED'): string {
  if (type === 'INCOMING') return 'COLLECTION_FAILED';
  switch (why) {
    case 'ACCOUNT_CLOSED':
      return 'ACCOUNT_INVALID';
    case 'REJECTED':
      return 'ACCOUNT_CANNOT_RECEIVE';
    default:
      // Insufficient funds, the 005 timeout, a cancellation: the transfer could not be carried out (held funds refunded).
      return 'QUOTE_EXECUTION_FAILED';
  }
}
