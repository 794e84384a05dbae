import { describe, expect, it } from 'vitest';
import { endingOf } from '../../../src/domain/payments/payment-lifecycle.js';
import { failsAtOnce, failureReasonOf, quoteOutcome, transferOutcome } from '../../../src/domain/payments/transfer-outcomes.js';

describe('the sandbox transfer outcomes', () => {
  it('reads the last three digits of the identifier, before the @ of one with a domain part', () => {
    expect(transferOutcome('123456789002', true)).toBe('INSUFFICIENT_FUNDS');
    expect(transferOutcome('DE89370400440532013003', true)).toBe('ACCOUNT_CLOSED');
    expect(transferOutcome('payee004@bank.example', true)).toBe('REJECTED');
    expect(transferOutcome('002135000000000005', true)).toBe('DELAYED_FAILURE');
    expect(transferOutcome('123456789102', true)).toBe('SUCCESS');
    expect(transferOutcome('0x52908400098527886E0F7030069857D2E4169EE7', true)).toBe('SUCCESS');
    expect(transferOutcome(null, true)).toBe('SUCCESS');
  });

  it('has no suffixes in production', () => {
    expect(transferOutcome('123456789002', false)).toBe('SUCCESS');
    expect(transferOutcome('123456789005', false)).toBe('SUCCESS');
  });

  it('fails at once only for 002 and 003, with the document\'s reason for each type', () => {
    expect(['INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED', 'REJECTED', 'DELAYED_FAILURE', 'SUCCESS'].filter((o) => failsAtOnce(o as never))).toEqual(['INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED']);
    expect(failureReasonOf('OUTGOING', 'ACCOUNT_CLOSED')).toBe('ACCOUNT_INVALID');
    expect(failureReasonOf('OUTGOING', 'REJECTED')).toBe('ACCOUNT_CANNOT_RECEIVE');
    expect(failureReasonOf('OUTGOING', 'INSUFFICIENT_FUNDS')).toBe('QUOTE_EXECUTION_FAILED');
    expect(failureReasonOf('OUTGOING', 'NO_AVAILABLE_BALANCE')).toBe('QUOTE_EXECUTION_FAILED');
    for (const why of ['ACCOUNT_CLOSED', 'REJECTED', 'DELAYED_FAILURE', 'CANCELLED'] as const) expect(failureReasonOf('INCOMING', why)).toBe('COLLECTION_FAILED');
  });

  it("reads a quote payment's outcome from its own table of suffixes, none in production", () => {
    const outcomes = ['001', '002', '003', '004', '005', '006', '007', '008'].map((suffix) => quoteOutcome(`DE8937040044053201${suffix}`, true));
    expect(outcomes).toEqual(['SUCCESS', 'QUOTE_EXECUTION_FAILED', 'LONG_PAYMENT', 'DELIVERY_FAILED', 'RETURNED', 'USER_CANCELLED', 'PAYOUT_AND_REFUND_FAILED', 'SUCCESS']);
    expect(quoteOutcome('123456789007', false)).toBe('SUCCESS');
    expect(quoteOutcome(null, true)).toBe('SUCCESS');
  });

  it('ends each quote and UMA outcome as the guide says: a long, returned or approved payment completes first; the others fail with their reasons', () => {
    for (const o of ['SUCCESS', 'LONG_PAYMENT', 'RETURNED', 'UMA_LONG_PENDING', 'AWAITING_APPROVAL'] as const) expect(endingOf(o), o).toEqual({ status: 'COMPLETED' });
    expect(endingOf('USER_CANCELLED')).toEqual({ status: 'FAILED', why: 'CANCELLED' });
    expect(endingOf('PAYOUT_AND_REFUND_FAILED')).toEqual({ status: 'FAILED', why: 'PAYOUT_AND_REFUND_FAILED' });
    expect(failureReasonOf('OUTGOING', 'DELIVERY_FAILED')).toBe('ACCOUNT_CANNOT_RECEIVE');
    expect(failureReasonOf('OUTGOING', 'RETURNED')).toBe('PAYOUT_RETURNED');
    expect(failureReasonOf('OUTGOING', 'UMA_COMPLIANCE_FAILED')).toBe('COMPLIANCE_REJECTED');
    expect(failureReasonOf('INCOMING', 'UMA_COMPLIANCE_FAILED')).toBe('COMPLIANCE_REJECTED');
    expect(failureReasonOf('INCOMING', 'REJECTED_BY_PLATFORM')).toBe('COMPLIANCE_REJECTED');
  });
});
