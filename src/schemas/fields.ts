import { Type } from 'typebox';

/** Field formats shared by resources; the validator knows each format by name (http/validation.ts). */
export const CountryCodeSchema = (description: string) => Type.String({ format: 'iso3166-1-alpha-2', description });
export const PhoneNumberSchema = Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', format: 'e.164', description: 'E.164, e.g. +14155550123' });
export const EmailSchema = Type.String({ format: 'email', maxLength: 254 });
/** Birth and incorporation dates: none before this is plausible, so one is a typing mistake (0001-01-01). */
export const EARLIEST_DATE = '1900-01-01';
export const PastDateSchema = (description: string) =>
  Type.String({ format: 'date', 'x-past': true, 'x-not-before': EARLIEST_DATE, description: `${description}; a real date from ${EARLIEST_DATE} to yesterday` });
/** Text must hold something other than whitespace (a name of three spaces is no name). */
export const NOT_BLANK = '\\S';
/** Non-blank text of at most `maxLength` characters. */
export const text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, pattern: NOT_BLANK, ...(description ? { description } : {}) });

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
