import { electronicFormatIBAN, isValidIBAN } from 'ibantools';

/** An IBAN: its country's length and BBAN format, and the ISO 13616 mod-97 check digits. */
export function ibanProblem(value: string): string | undefined {
  const iban = electronicFormatIBAN(value) ?? value;
  return isValidIBAN(iban) ? undefined : 'is not a valid IBAN (its mod-97 check digits, length or BBAN format for its country do not match)';
}
