import { clabe } from 'clabe-validator';

/** A Mexican CLABE: 18 digits, a known bank and city code, and the weighted check digit. */
export function clabeProblem(value: string): string | undefined {
  const result = clabe.validate(value);
  return result.ok ? undefined : `is not a valid CLABE (${result.message.toLowerCase()})`;
}
