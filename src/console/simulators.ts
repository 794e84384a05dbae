import { isCountryCode } from '../domain/customers/countries.js';
import { isOpening, SIMULATIONS, type FollowUpSimulation, type SimulationName } from '../domain/cards/card-transactions.js';
import { ValidationError, type FieldError } from '../domain/shared/errors.js';
import type { Services } from '../services.js';

/** A field of a simulator form: its form name, its label, and how its value is read. */
interface SimulatorField {
  name: 'amount' | 'merchantDescriptor' | 'cardTransactionId' | 'mcc' | 'merchantCountry';
  label: string;
  /** Left empty, it is left out of the request. */
  optional?: boolean;
  /** Amounts only: the least accepted (clearing takes 0). */
  minimum?: number;
}

/** One card simulator of the service as a form on the card page: adding a simulator is one entry here. */
export interface SimulatorForm {
  name: SimulationName;
  button: string;
  hint: string;
  fields: SimulatorField[];
}

const AMOUNT: SimulatorField = { name: 'amount', label: 'Amount' };
const TRANSACTION: SimulatorField = { name: 'cardTransactionId', label: 'Card transaction' };
/** The merchant of a new transaction: its descriptor (whose suffix can force an outcome), and optionally its category code and country. */
const MERCHANT: SimulatorField[] = [
  { name: 'merchantDescriptor', label: 'Merchant descriptor' },
  { name: 'mcc', label: 'MCC', optional: true },
  { name: 'merchantCountry', label: 'Merchant country', optional: true },
];

export const SIMULATOR_FORMS: SimulatorForm[] = [
  { name: 'authorization', button: 'Simulate authorization', hint: 'A new transaction, decided when it lands; the descriptor suffix can force an outcome.', fields: [AMOUNT, ...MERCHANT] },
  { name: 'clearing', button: 'Simulate clearing', hint: 'Settles part or all of an open authorization; 0 expires a fully open one.', fields: [TRANSACTION, { ...AMOUNT, minimum: 0 }] },
  { name: 'return', button: 'Simulate return', hint: 'Refunds settled funds.', fields: [TRANSACTION, AMOUNT] },
  { name: 'authorization_expiry', button: 'Simulate authorization expiry', hint: 'A fully open authorization lapses; the hold is released.', fields: [TRANSACTION] },
  { name: 'return_reversal', button: 'Simulate return reversal', hint: 'Reverses the return of a refunded transaction.', fields: [TRANSACTION] },
  { name: 'authorization_advice', button: 'Simulate authorization advice', hint: 'Re-sizes the hold of an open debit authorization to a new total.', fields: [TRANSACTION, AMOUNT] },
  { name: 'financial_authorization', button: 'Simulate financial authorization', hint: 'Authorized and settled at once (single-message); decided like an authorization.', fields: [AMOUNT, ...MERCHANT] },
  { name: 'credit_authorization', button: 'Simulate credit authorization', hint: 'Opens a CREDIT transaction; its clearing credits the account.', fields: [AMOUNT, ...MERCHANT] },
  { name: 'credit_authorization_advice', button: 'Simulate credit authorization advice', hint: 'A CREDIT transaction the network already decided.', fields: [AMOUNT, ...MERCHANT] },
  { name: 'financial_credit_authorization', button: 'Simulate financial credit authorization', hint: 'A CREDIT authorized and settled at once.', fields: [AMOUNT, ...MERCHANT] },
  { name: 'balance_inquiry', button: 'Simulate balance inquiry', hint: 'Zero amount; holds nothing.', fields: MERCHANT },
];

/** The documented merchant descriptor suffixes, offered as presets of the authorization form. */
export const DESCRIPTOR_PRESETS = [
  { value: 'BLUE BOTTLE COFFEE SF', suffix: 'any other', label: 'approved when funds allow' },
  { value: 'CORNER STORE 002', suffix: '002', label: 'declined: INSUFFICIENT_FUNDS' },
  { value: 'CORNER STORE 003', suffix: '003', label: 'declined: CARD_PAUSED' },
  { value: 'CORNER STORE 005', suffix: '005', label: 'pull confirmed after a delay' },
  { value: 'CORNER STORE 006', suffix: '006', label: 'pull reported failed: EXCEPTION' },
];

const MAX_AMOUNT = 100_000_000_000;

/** Reads a simulator form; every invalid field is reported at once, as the API does. */
function readForm(form: SimulatorForm, body: Record<string, unknown>): Record<string, string | number> {
  const errors: FieldError[] = [];
  const out: Record<string, string | number> = {};
  for (const field of form.fields) {
    const raw = typeof body[field.name] === 'string' ? (body[field.name] as string).trim() : '';
    if (field.optional && raw === '') continue;
    if (field.name === 'mcc') {
      if (/^\d{4}$/.test(raw)) out.mcc = raw;
      else errors.push({ field: field.name, message: 'must be four digits (a merchant category code)' });
    } else if (field.name === 'merchantCountry') {
      if (isCountryCode(raw)) out.merchantCountry = raw;
      else errors.push({ field: field.name, message: 'must be a two-letter ISO 3166-1 country code' });
    } else if (field.name === 'amount') {
      const minimum = field.minimum ?? 1;
      if (!/^\d{1,12}$/.test(raw) || Number(raw) < minimum || Number(raw) > MAX_AMOUNT) {
        errors.push({ field: field.name, message: `must be a whole number of minor units from ${minimum} to ${MAX_AMOUNT}` });
      } else out[field.name] = Number(raw);
    } else if (raw === '' || raw.length > (field.name === 'merchantDescriptor' ? 100 : 128)) {
      errors.push({ field: field.name, message: 'is required' + (raw === '' ? '' : ' and must be shorter') });
    } else out[field.name] = raw;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return out;
}

/** Runs a simulator through the same domain service as the sandbox API; returns the transaction it concerns. */
export async function runSimulator(services: Services, principal: { platformId: string; tokenId: string }, cardId: string, form: SimulatorForm, body: Record<string, unknown>): Promise<string> {
  const input = readForm(form, body);
  const kind = SIMULATIONS[form.name];
  if (isOpening(kind)) {
    const card = await services.cards.get(principal.platformId, cardId);
    const merchant = {
      descriptor: input.merchantDescriptor as string,
      ...(input.mcc === undefined ? {} : { mcc: input.mcc as string }),
      ...(input.merchantCountry === undefined ? {} : { country: input.merchantCountry as string }),
    };
    const amount = form.name === 'balance_inquiry' ? 0 : (input.amount as number);
    const accepted = await services.cardSimulations.authorize(principal.platformId, cardId, { amount, currency: { code: card.currency }, merchant }, principal.tokenId, undefined, kind);
    return accepted.cardTransactionId;
  }
  const request = { cardTransactionId: input.cardTransactionId as string, ...(input.amount === undefined ? {} : { amount: input.amount as number }) };
  await services.cardSimulations.simulate(principal.platformId, cardId, form.name as FollowUpSimulation, request);
  return request.cardTransactionId;
}
