import { describe, expect, it } from 'vitest';
import { decide, declineBySuffix, suffixOutcome } from '../../../src/domain/cards/authorization-decisioning.js';

const balances = (map: Record<string, number>) => {
  const asked: string[] = [];
  return { asked, balanceOf: async (id: string) => (asked.push(id), map[id] ?? 0) };
};

describe('authorization decisioning', () => {
  it('reads the last three characters of the descriptor as Grid does', () => {
    expect(suffixOutcome('AMAZON RETAIL US-002')).toEqual({ decline: 'INSUFFICIENT_FUNDS' });
    expect(suffixOutcome('X003')).toEqual({ decline: 'CARD_PAUSED' });
    expect(suffixOutcome('SLOW 005')).toEqual({ pull: 'DELAYED' });
    expect(suffixOutcome('006')).toEqual({ pull: 'REPORTED_FAILED' });
    for (const other of ['BLUE BOTTLE COFFEE SF', '0020', '002 ', '02', '', '001', '004']) expect(suffixOutcome(other), other).toEqual({ pull: 'CONFIRMED' });
    expect(declineBySuffix('A002')).toBe('INSUFFICIENT_FUNDS');
    expect(declineBySuffix('A005')).toBeUndefined();
  });

  it('a card that is not ACTIVE is CARD_PAUSED whatever the limit, the descriptor and the funds, and no balance is read', async () => {
    for (const state of ['FROZEN', 'PROCESSING', 'CLOSED', 'PENDING_KYC']) {
      const b = balances({ a: 10_000 });
      expect(await decide({ cardState: state, maxSpendPerTransaction: 1, descriptor: 'SHOP 005', amount: 2, candidates: ['a'] }, b.balanceOf)).toMatchObject({ approved: false, reason: 'CARD_PAUSED', accountId: 'a' });
      expect(b.asked).toEqual([]);
    }
  });

  it('takes the first funding source, in priority order, with the amount available; reads no further', async () => {
    const b = balances({ a: 99, b: 100, c: 1_000 });
    expect(await decide({ cardState: 'ACTIVE', maxSpendPerTransaction: null, descriptor: 'SHOP', amount: 100, candidates: ['a', 'b', 'c'] }, b.balanceOf)).toEqual({ approved: true, accountId: 'b', pull: 'CONFIRMED' });
    expect(b.asked).toEqual(['a', 'b']);
  });

  it('INSUFFICIENT_FUNDS when none has it, naming the first source; the suffix 005 or 006 approval still needs the funds', async () => {
    const b = balances({ a: 10, b: 20 });
    expect(await decide({ cardState: 'ACTIVE', maxSpendPerTransaction: null, descriptor: 'SHOP 006', amount: 21, candidates: ['a', 'b'] }, b.balanceOf)).toMatchObject({ approved: false, reason: 'INSUFFICIENT_FUNDS', accountId: 'a' });
    expect(await decide({ cardState: 'ACTIVE', maxSpendPerTransaction: null, descriptor: 'SHOP 006', amount: 20, candidates: ['a', 'b'] }, b.balanceOf)).toEqual({ approved: true, accountId: 'b', pull: 'REPORTED_FAILED' });
  });

  it('SPEND_LIMIT_EXCEEDED above the limit, before the descriptor and the funds, reading no balance; exactly the limit is approved', async () => {
    const b = balances({ a: 10_000 });
    const over = { cardState: 'ACTIVE', maxSpendPerTransaction: 500, amount: 501, candidates: ['a'] };
    for (const descriptor of ['SHOP', 'SHOP 002', 'SHOP 003']) {
      expect(await decide({ ...over, descriptor }, b.balanceOf), descriptor).toMatchObject({ approved: false, reason: 'SPEND_LIMIT_EXCEEDED', accountId: 'a' });
    }
    expect(b.asked).toEqual([]);
    expect(await decide({ ...over, amount: 500, descriptor: 'SHOP' }, b.balanceOf)).toEqual({ approved: true, accountId: 'a', pull: 'CONFIRMED' });
    expect(await decide({ ...over, amount: 500, descriptor: 'SHOP 002' }, b.balanceOf)).toMatchObject({ approved: false, reason: 'INSUFFICIENT_FUNDS' });
  });

  it('a CREDIT is decided by the card state and the suffix declines alone: no limit, no balance read, nothing pulled', async () => {
    const b = balances({ a: 0 });
    const credit = (cardState: string, descriptor: string) => decide({ cardState, maxSpendPerTransaction: 1, descriptor, amount: 5_000, candidates: ['a', 'b'], direction: 'CREDIT' }, b.balanceOf);
    expect(await credit('ACTIVE', 'REFUND')).toEqual({ approved: true, accountId: 'a', pull: 'CONFIRMED' });
    for (const descriptor of ['REFUND 005', 'REFUND 006']) expect(await credit('ACTIVE', descriptor)).toEqual({ approved: true, accountId: 'a', pull: 'CONFIRMED' });
    expect(await credit('FROZEN', 'REFUND')).toMatchObject({ approved: false, reason: 'CARD_PAUSED' });
    expect(await credit('ACTIVE', 'REFUND 002')).toMatchObject({ approved: false, reason: 'INSUFFICIENT_FUNDS' });
    expect(b.asked).toEqual([]);
  });

  it('an amount of 0 (a balance inquiry) is approved on an ACTIVE card without reading a balance, and pulls nothing', async () => {
    const b = balances({});
    expect(await decide({ cardState: 'ACTIVE', maxSpendPerTransaction: null, descriptor: 'PUMP 006', amount: 0, candidates: ['a'] }, b.balanceOf)).toEqual({ approved: true, accountId: 'a', pull: 'CONFIRMED' });
    expect(await decide({ cardState: 'CLOSED', maxSpendPerTransaction: null, descriptor: 'PUMP', amount: 0, candidates: ['a'] }, b.balanceOf)).toMatchObject({ approved: false, reason: 'CARD_PAUSED' });
    expect(b.asked).toEqual([]);
  });
});
