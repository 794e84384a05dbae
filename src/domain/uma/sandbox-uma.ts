import { UMA_ADDRESS_PATTERN } from '../customers/customer-fields.js';

/** The domain of the sandbox guide's UMA addresses: every other address there has no receiver. */
export const SANDBOX_UMA_DOMAIN = 'sandbox.uma.money';

/** What paying a sandbox address does: a quote to it executed (payments/quote-payments.ts), or it sending to /sandbox/uma/receive. */
export type SandboxUmaBehaviour = 'SUCCEEDS' | 'LONG_PENDING' | 'COMPLIANCE_FAILURE';

export interface SandboxUmaAddress {
  address: string;
  /** The one currency it receives. */
  currency: string;
  behaviour: SandboxUmaBehaviour;
}

/** The sandbox guide's addresses, each as the guide describes it. */
export const SANDBOX_UMA_ADDRESSES: readonly SandboxUmaAddress[] = [
  { address: '$success.usd@sandbox.uma.money', currency: 'USD', behaviour: 'SUCCEEDS' },
  { address: '$success.eur@sandbox.uma.money', currency: 'EUR', behaviour: 'SUCCEEDS' },
  { address: '$success.mxn@sandbox.uma.money', currency: 'MXN', behaviour: 'SUCCEEDS' },
  { address: '$pending.long.usd@sandbox.uma.money', currency: 'USD', behaviour: 'LONG_PENDING' },
  { address: '$fail.compliance.usd@sandbox.uma.money', currency: 'USD', behaviour: 'COMPLIANCE_FAILURE' },
];

const byAddress = new Map(SANDBOX_UMA_ADDRESSES.map((a) => [a.address.toLowerCase(), a]));
const pattern = new RegExp(UMA_ADDRESS_PATTERN);

export const isUmaAddress = (value: string): boolean => pattern.test(value);

/** The sandbox address `value` names (case-insensitively), if it is one. */
export const sandboxUmaAddress = (value: string): SandboxUmaAddress | undefined => byAddress.get(value.toLowerCase());
