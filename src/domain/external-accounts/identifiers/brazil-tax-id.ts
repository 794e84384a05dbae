import { isValidCNPJ, isValidCPF } from '@brazilian-utils/brazilian-utils';

export function cpfProblem(value: string): string | undefined {
  return /^[0-9]{11}$/.test(value) && isValidCPF(value) ? undefined : 'is not a valid CPF (11 digits with matching check digits)';
}

export function cnpjProblem(value: string): string | undefined {
  return /^[0-9]{14}$/.test(value) && isValidCNPJ(value) ? undefined : 'is not a valid CNPJ (14 digits with matching check digits)';
}

/** A Brazilian tax id: a CPF (11 digits) or a CNPJ (14 digits), each with its check digits. */
export function brazilTaxIdProblem(value: string): string | undefined {
  if (value.length === 11) return cpfProblem(value);
  if (value.length === 14) return cnpjProblem(value);
  return 'must be a CPF (11 digits) or a CNPJ (14 digits)';
}
