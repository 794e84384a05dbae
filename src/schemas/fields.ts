import { Type } from 'typebox';

/** Field formats shared by resources; the validator knows each format by name (http/validation.ts). */
export const CountryCodeSchema = (description: string) => Type.String({ format: 'iso3166-1-alpha-2', description });
export const PhoneNumberSchema = Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', format: 'e.164', description: 'E.164, e.g. +14155550123' });
export const EmailSchema = Type.String({ format: 'email', maxLength: 254 });
export const PastDateSchema = (description: string) => Type.String({ format: 'date', 'x-past': true, description });
/** Non-empty text of at most `maxLength` characters. */
export const text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

export const AddressSchema = Type.Object(
  {
    line1: text(200, 'Street address line 1'),
    line2: Type.Optional(text(200, 'Street address line 2')),
    city: Type.Optional(text(100, 'City')),
    state: Type.Optional(text(100, 'State, province or region')),
    postalCode: text(20, 'Postal or ZIP code'),
    country: CountryCodeSchema('ISO 3166-1 alpha-2 country code'),
  },
  { additionalProperties: false },
);
