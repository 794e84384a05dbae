import { Type } from 'typebox';
import { KYC_STATUSES } from '../domain/beneficial-owners.js';
import { CUSTOMER_TYPES, ENTITY_TYPES } from '../domain/customers.js';
import { PageQuerySchema } from './common.js';
import { AddressSchema, CountryCodeSchema, EmailSchema, PastDateSchema, PhoneNumberSchema, text } from './fields.js';

const BusinessInfoSchema = Type.Object(
  {
    legalName: text(200, 'Legal name of the business'),
    doingBusinessAs: Type.Optional(text(200)),
    country: Type.Optional(CountryCodeSchema('Country of incorporation or registration')),
    registrationNumber: Type.Optional(text(64)),
    incorporatedOn: PastDateSchema('Date of incorporation, YYYY-MM-DD'),
    entityType: Type.Optional(Type.Enum([...ENTITY_TYPES])),
    taxId: text(64, 'Tax identification number'),
    countriesOfOperation: Type.Optional(Type.Array(CountryCodeSchema('ISO 3166-1 alpha-2'), { maxItems: 250, uniqueItems: true })),
  },
  { additionalProperties: false },
);

const customerFields = {
  region: Type.Optional(CountryCodeSchema("The customer's regional identity and regulatory jurisdiction")),
  currencies: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z0-9]{3,5}$' }), { maxItems: 20, uniqueItems: true, description: 'Currency codes (ISO 4217 or tickers)' })),
  email: Type.Optional(EmailSchema),
  phoneNumber: Type.Optional(PhoneNumberSchema),
  fullName: Type.Optional(text(200, 'INDIVIDUAL only')),
  birthDate: Type.Optional(PastDateSchema('INDIVIDUAL only; YYYY-MM-DD')),
  nationality: Type.Optional(CountryCodeSchema('INDIVIDUAL only')),
  address: Type.Optional(AddressSchema),
  businessInfo: Type.Optional(BusinessInfoSchema),
};

export const CreateCustomerBody = Type.Object(
  {
    customerType: Type.Enum([...CUSTOMER_TYPES]),
    platformCustomerId: Type.Optional(text(128, 'Your identifier for the customer; generated when absent')),
    ...customerFields,
  },
  { additionalProperties: false, description: 'A BUSINESS needs businessInfo (legalName, incorporatedOn, taxId) and address' },
);

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ examples: ['Customer:019542f5-b3e7-7d02-8000-000000000001'] }),
    platformCustomerId: Type.String(),
    customerType: Type.Enum([...CUSTOMER_TYPES]),
    ...customerFields,
    kycStatus: Type.Optional(Type.Enum([...KYC_STATUSES], { description: 'INDIVIDUAL customers; starts UNVERIFIED' })),
    kybStatus: Type.Optional(Type.Enum([...KYC_STATUSES], { description: 'BUSINESS customers; starts UNVERIFIED' })),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A customer (individual or business) of the platform' },
);

export const ListCustomersQuery = Type.Object(
  { ...PageQuerySchema, platformCustomerId: Type.Optional(text(128)), customerType: Type.Optional(Type.Enum([...CUSTOMER_TYPES])) },
  { additionalProperties: false },
);
