import { cnpjProblem, cpfProblem } from './brazil-tax-id.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const BR_PHONE = /^\+55[1-9][0-9]{9,10}$/;
const RANDOM_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A PIX key checked against its declared type: CPF and CNPJ with their check digits, email, +55 phone, random (EVP, a UUID). */
export function pixKeyProblem(key: string, type: string): string | undefined {
  switch (type) {
    case 'CPF':
      return cpfProblem(key);
    case 'CNPJ':
      return cnpjProblem(key);
    case 'EMAIL':
      return EMAIL.test(key) ? undefined : 'is not an email address (pixKeyType EMAIL)';
    case 'PHONE':
      return BR_PHONE.test(key) ? undefined : 'is not a Brazilian phone number such as +5511987654321 (pixKeyType PHONE)';
    case 'RANDOM':
      return RANDOM_KEY.test(key) ? undefined : 'is not a random PIX key, a UUID (pixKeyType RANDOM)';
    default:
      return undefined;
  }
}
