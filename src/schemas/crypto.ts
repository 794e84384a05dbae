import { Type } from 'typebox';
import { CRYPTO_NETWORKS } from '../domain/crypto/withdrawal-fees.js';

export const EstimateWithdrawalFeeBody = Type.Object(
  {
    internalAccountId: Type.String({ minLength: 1, maxLength: 128, description: 'A crypto internal account of a customer of this platform' }),
    currency: Type.String({ pattern: '^[A-Z0-9]{3,5}$', description: "The account's currency" }),
    cryptoNetwork: Type.Enum(CRYPTO_NETWORKS, { description: 'The network carrying the withdrawal' }),
    amount: Type.Integer({ exclusiveMinimum: 0, maximum: 9_000_000_000_000_000, description: 'Minor units to withdraw, fee included' }),
    destinationAddress: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Recorded, not checked' }),
  },
  { additionalProperties: false },
);

export const WithdrawalFeeEstimateSchema = Type.Object(
  {
    networkFee: Type.Integer({ description: 'Minor units of networkFeeAsset' }),
    networkFeeAsset: Type.String(),
    applicationFee: Type.Integer({ description: 'Sandbox: 0' }),
    totalFee: Type.Integer({ description: 'Minor units of the withdrawn currency' }),
    netAmount: Type.Integer({ description: 'amount less totalFee' }),
  },
  { description: 'A withdrawal fee estimate' },
);
