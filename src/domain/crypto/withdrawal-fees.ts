import { findAccount } from '../../store/accounts-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';

/** Per network: the asset its fee is paid in, the sandbox's network fee in that asset's minor units, and that fee in the withdrawn currency's minor units. */
const NETWORK_FEES: Readonly<Record<string, { asset: string; networkFee: number; inCurrency: Record<string, number> }>> = {
  SOLANA: { asset: 'SOL', networkFee: 5000, inCurrency: { USDC: 1000, USDT: 1000 } },
  ETHEREUM: { asset: 'ETH', networkFee: 210_000_000_000_000, inCurrency: { USDC: 500_000, USDT: 500_000 } },
  BASE: { asset: 'ETH', networkFee: 2_100_000_000_000, inCurrency: { USDC: 5000, USDT: 5000 } },
  POLYGON: { asset: 'POL', networkFee: 1_000_000_000_000_000, inCurrency: { USDC: 5000, USDT: 5000 } },
  TRON: { asset: 'TRX', networkFee: 1_000_000, inCurrency: { USDT: 1_000_000, USDC: 1_000_000 } },
  PLASMA: { asset: 'XPL', networkFee: 1_000_000_000_000, inCurrency: { USDT: 100, USDC: 100 } },
  SPARK: { asset: 'BTC', networkFee: 0, inCurrency: { BTC: 0, USDC: 0, USDT: 0 } },
  LIGHTNING: { asset: 'BTC', networkFee: 10, inCurrency: { BTC: 10 } },
  BITCOIN: { asset: 'BTC', networkFee: 1500, inCurrency: { BTC: 1500 } },
};

export const CRYPTO_NETWORKS = Object.keys(NETWORK_FEES);

export interface WithdrawalFeeEstimate {
  networkFee: number;
  networkFeeAsset: string;
  applicationFee: number;
  totalFee: number;
  netAmount: number;
}

export interface WithdrawalFeeInput {
  internalAccountId: string;
  currency: string;
  cryptoNetwork: string;
  amount: number;
  destinationAddress: string;
}

/** POST /crypto/estimate-withdrawal-fee: the sandbox's fixed network fees (docs/quotes.md), no application fee. */
export class WithdrawalFees {
  constructor(private readonly store: Store) {}

  /** `within`: the request's unit of work under an Idempotency-Key, so the read shares its connection. */
  async estimate(platformId: string, input: WithdrawalFeeInput, within?: UnitOfWork): Promise<WithdrawalFeeEstimate> {
    const account = await findAccount((within ?? this.store).db, platformId, input.internalAccountId);
    if (!account) throw new NotFoundError('InternalAccount', input.internalAccountId);
    const errors: FieldError[] = [];
    if (account.currency !== input.currency) errors.push({ field: 'currency', constraint: { enum: [account.currency] }, message: `must be the account's currency, ${account.currency}` });
    const network = NETWORK_FEES[input.cryptoNetwork];
    const totalFee = network?.inCurrency[input.currency];
    if (network && totalFee === undefined) errors.push({ field: 'cryptoNetwork', message: `does not carry ${input.currency}` });
    if (totalFee !== undefined && input.amount <= totalFee) errors.push({ field: 'amount', message: `must exceed the fee, ${totalFee}` });
    if (errors.length > 0) throw new ValidationError(errors);
    return { networkFee: network!.networkFee, networkFeeAsset: network!.asset, applicationFee: 0, totalFee: totalFee!, netAmount: input.amount - totalFee! };
  }
}
