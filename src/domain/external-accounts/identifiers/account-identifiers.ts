import type { FieldError } from '../../shared/errors.js';
import type { AccountInfo, AccountType } from '../account-types.js';
import { abaRoutingProblem } from './aba-routing.js';
import { brazilTaxIdProblem } from './brazil-tax-id.js';
import { clabeProblem } from './clabe.js';
import { evmAddressProblem } from './evm-address.js';
import { ibanProblem } from './iban.js';
import { bolt11Problem, bolt12Problem, lightningAddressProblem } from './lightning.js';
import { pixKeyProblem } from './pix-key.js';
import { solanaAddressProblem } from './solana-address.js';
import { sparkAddressProblem } from './spark-address.js';
import { tronAddressProblem } from './tron-address.js';

type Check = (value: string, info: AccountInfo) => string | undefined;

const IBAN: Record<string, Check> = { iban: ibanProblem };
const EVM: Record<string, Check> = { address: evmAddressProblem };

/** Per account type, the fields whose scheme has a public checksum or format, and their check. */
const CHECKS: Partial<Record<AccountType, Record<string, Check>>> = {
  AED_ACCOUNT: IBAN,
  DKK_ACCOUNT: IBAN,
  EGP_ACCOUNT: IBAN,
  EUR_ACCOUNT: IBAN,
  PKR_ACCOUNT: IBAN,
  SWIFT_ACCOUNT: IBAN,
  USD_ACCOUNT: { routingNumber: abaRoutingProblem, intermediaryRoutingNumber: abaRoutingProblem },
  MXN_ACCOUNT: { clabeNumber: clabeProblem },
  BRL_ACCOUNT: { taxId: brazilTaxIdProblem, pixKey: (key, info) => (typeof info.pixKeyType === 'string' ? pixKeyProblem(key, info.pixKeyType) : undefined) },
  BASE_WALLET: EVM,
  ETHEREUM_WALLET: EVM,
  POLYGON_WALLET: EVM,
  PLASMA_WALLET: EVM,
  SOLANA_WALLET: { address: solanaAddressProblem },
  TRON_WALLET: { address: tronAddressProblem },
  SPARK_WALLET: { address: sparkAddressProblem },
  LIGHTNING: { invoice: bolt11Problem, bolt12: bolt12Problem, lightningAddress: lightningAddressProblem },
};

/**
 * Every identifier of an accountInfo that fails its scheme's check, each named `accountInfo.<field>`.
 * Takes any input (a body that failed the schema too): only string fields of a known type are checked.
 */
export function identifierErrors(info: unknown): FieldError[] {
  if (info === null || typeof info !== 'object' || Array.isArray(info)) return [];
  const account = info as AccountInfo;
  const checks = CHECKS[account.accountType] ?? {};
  const errors: FieldError[] = [];
  for (const [field, check] of Object.entries(checks)) {
    const value = account[field];
    if (typeof value !== 'string' || value === '') continue;
    const problem = check(value, account);
    if (problem !== undefined) errors.push({ field: `accountInfo.${field}`, message: problem });
  }
  return errors;
}
