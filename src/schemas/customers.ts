import { Type, type TSchema } from 'typebox';
import { KYC_STATUSES } from '../domain/customers/beneficial-owners.js';
import {
  ANNUAL_INCOME_RANGES,
  BUSINESS_SOURCES_OF_FUNDS,
  BUSINESS_TYPES,
  CUSTOMER_TYPES,
  ENTITY_TYPES,
  INDIVIDUAL_ID_TYPES,
  INDIVIDUAL_SOURCES_OF_FUNDS,
  MONTHLY_TRANSACTION_COUNTS,
  MONTHLY_TRANSACTION_VOLUMES,
  NET_WORTH_RANGES,
  PEP_STATUSES,
  PURPOSES_OF_ACCOUNT,
  SOURCES_OF_WEALTH,
  TERMS_ACCEPTANCE_METHODS,
  UMA_ADDRESS_PATTERN,
} from '../domain/customers/customer-fields.js';
import { extension, PageQuerySchema } from './common.js';
import { AddressSchema, CountryCodeSchema, EmailSchema, PastDateSchema, PhoneNumberSchema, text } from './fields.js';

const enumOf = (values: readonly string[], description?: string) => Type.Enum([...values], description ? { description } : {});
const listOf = (item: TSchema, description: string) => Type.Array(item, { maxItems: 250, uniqueItems: true, description });
const countries = (description: string) => listOf(CountryCodeSchema('ISO 3166-1 alpha-2'), description);
const CurrencyCode = Type.String({ pattern: '^[A-Z0-9]{3,5}$' });

/** businessInfo's fields; on creation legalName, incorporatedOn and taxId are required, on a change none is. */
const businessInfoFields = {
  legalName: text(200, 'Legal name of the business'),
  doingBusinessAs: Type.Optional(text(200, 'Trade or DBA name')),
  country: Type.Optional(CountryCodeSchema('Country of incorporation or registration')),
  registrationNumber: Type.Optional(text(64, 'Business registration number')),
  incorporatedOn: PastDateSchema('Date of incorporation, YYYY-MM-DD'),
  entityType: Type.Optional(enumOf(ENTITY_TYPES, 'Legal entity type')),
  taxId: text(64, 'Tax identification number'),
  countriesOfOperation: Type.Optional(countries('Countries where the business operates')),
  businessType: Type.Optional(enumOf(BUSINESS_TYPES, 'High-level industry category')),
  purposeOfAccount: Type.Optional(enumOf(PURPOSES_OF_ACCOUNT)),
  sourceOfFunds: Type.Optional(text(500, 'Primary source of funds')),
  expectedMonthlyTransactionCount: Type.Optional(enumOf(MONTHLY_TRANSACTION_COUNTS)),
  expectedMonthlyTransactionVolume: Type.Optional(enumOf(MONTHLY_TRANSACTION_VOLUMES, 'USD equivalent')),
  expectedRecipientJurisdictions: Type.Optional(countries('Countries the business expects to send payments to')),
  naicsCode: Type.Optional(Type.String({ pattern: '^\\d{2,6}$', description: 'NAICS code, 2 to 6 digits' })),
  sourceOfFundsCategories: Type.Optional(listOf(enumOf(BUSINESS_SOURCES_OF_FUNDS), 'Structured source-of-funds categories')),
  sourceOfFundsOtherDescription: Type.Optional(text(500)),
  purposeOfAccountOtherDescription: Type.Optional(text(500)),
  expectedCounterpartyCountries: Type.Optional(countries("Countries of the business's expected counterparties")),
  primaryContactFirstName: Type.Optional(text(250)),
  primaryContactLastName: Type.Optional(text(250)),
};

const BusinessInfoCreate = Type.Object(businessInfoFields, { additionalProperties: false, description: 'Required for a BUSINESS customer' });
const optionalBusinessInfoFields = Object.fromEntries(Object.entries(businessInfoFields).map(([k, v]) => [k, Type.Optional(v)])) as Record<string, TSchema>;
const BusinessInfoChange = Type.Object(optionalBusinessInfoFields, { additionalProperties: false, description: 'BUSINESS only; the fields given change, the others stay' });
const BusinessInfoResponse = Type.Object({ ...optionalBusinessInfoFields, legalName: businessInfoFields.legalName });

export const EndUserTermsConsentSchema = Type.Object(
  {
    acceptedAt: Type.String({ format: 'date-time', description: 'When the customer accepted the End User Terms' }),
    ipAddress: text(45, 'IP address of the device the customer accepted from'),
    termsVersion: text(64, 'Version of the accepted terms, e.g. V1'),
    acceptanceMethod: enumOf(TERMS_ACCEPTANCE_METHODS),
  },
  { additionalProperties: false, description: "Evidence that the customer accepted the End User Terms (stored and returned; the service does not act on it)" },
);

/** Fields every customer may have, on creation and on a change. */
const commonFields = {
  currencies: Type.Optional(Type.Array(CurrencyCode, { maxItems: 20, uniqueItems: true, description: 'Currency codes (ISO 4217 or tickers); a change replaces the list' })),
  email: Type.Optional(EmailSchema),
  phoneNumber: Type.Optional(PhoneNumberSchema),
  umaAddress: Type.Optional(
    Type.String({ pattern: UMA_ADDRESS_PATTERN, maxLength: 255, description: 'UMA address, $user@domain; assigned when absent on creation; unique among the platform\'s active customers (409 UMA_ADDRESS_EXISTS); malformed: 400 INVALID_UMA_ADDRESS' }),
  ),
  endUserTermsConsent: Type.Optional(EndUserTermsConsentSchema),
  address: Type.Optional(AddressSchema),
};

/** INDIVIDUAL customers only. */
const individualFields = {
  fullName: Type.Optional(text(200, 'INDIVIDUAL only')),
  birthDate: Type.Optional(PastDateSchema('INDIVIDUAL only; YYYY-MM-DD')),
  nationality: Type.Optional(CountryCodeSchema('INDIVIDUAL only')),
  idType: Type.Optional(enumOf(INDIVIDUAL_ID_TYPES, 'INDIVIDUAL only; SSN or ITIN (other identification types are refused)')),
  identifier: Type.Optional(Type.String({ pattern: '^\\d{3}-\\d{2}-\\d{4}$', writeOnly: true, description: 'INDIVIDUAL only; ###-##-####; write-only: never returned' })),
  countryOfIssuance: Type.Optional(Type.Enum(['US'], { description: 'INDIVIDUAL only; SSN and ITIN are US-issued, so only US' })),
  sourceOfFundsCategories: Type.Optional(listOf(enumOf(INDIVIDUAL_SOURCES_OF_FUNDS), 'INDIVIDUAL only')),
  sourceOfFundsOtherDescription: Type.Optional(text(500, 'INDIVIDUAL only')),
  sourceOfWealthCategories: Type.Optional(listOf(enumOf(SOURCES_OF_WEALTH), 'INDIVIDUAL only')),
  sourceOfWealthOtherDescription: Type.Optional(text(500, 'INDIVIDUAL only')),
  purposeOfAccount: Type.Optional(enumOf(PURPOSES_OF_ACCOUNT, 'INDIVIDUAL only (a business gives it in businessInfo)')),
  purposeOfAccountOtherDescription: Type.Optional(text(500, 'INDIVIDUAL only')),
  expectedMonthlyTransactionCount: Type.Optional(enumOf(MONTHLY_TRANSACTION_COUNTS, 'INDIVIDUAL only (a business gives it in businessInfo)')),
  expectedMonthlyTransactionVolume: Type.Optional(enumOf(MONTHLY_TRANSACTION_VOLUMES, 'INDIVIDUAL only (a business gives it in businessInfo)')),
  annualIncomeRange: Type.Optional(enumOf(ANNUAL_INCOME_RANGES, 'INDIVIDUAL only')),
  netWorthRange: Type.Optional(enumOf(NET_WORTH_RANGES, 'INDIVIDUAL only')),
  pepStatus: Type.Optional(enumOf(PEP_STATUSES, 'INDIVIDUAL only')),
};

/** The interface lets a request carry the statuses; the service sets them itself and ignores these. */
const ignoredStatuses = {
  kycStatus: Type.Optional(enumOf(KYC_STATUSES, 'Ignored on input: set by verification')),
  kybStatus: Type.Optional(enumOf(KYC_STATUSES, 'Ignored on input: set by verification')),
};

export const CreateCustomerBody = Type.Object(
  {
    customerType: enumOf(CUSTOMER_TYPES),
    platformCustomerId: Type.Optional(text(128, 'Your identifier for the customer; generated when absent; unique among the platform\'s active customers (409 CONFLICT)')),
    region: Type.Optional(CountryCodeSchema("The customer's regional identity and regulatory jurisdiction")),
    ...commonFields,
    ...individualFields,
    businessInfo: Type.Optional(BusinessInfoCreate),
    ...ignoredStatuses,
  },
  { additionalProperties: false, description: 'A BUSINESS needs businessInfo (legalName, incorporatedOn, taxId); address is optional. Fields of the other type are refused.' },
);

export const PatchCustomerBody = Type.Object(
  {
    customerType: enumOf(CUSTOMER_TYPES, "Must be the customer's type"),
    ...commonFields,
    ...individualFields,
    businessInfo: Type.Optional(BusinessInfoChange),
    ...ignoredStatuses,
  },
  { additionalProperties: false, description: 'The fields given change, with the rules of creation; email and phoneNumber change in separate requests.' },
);

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ examples: ['Customer:019542f5-b3e7-7d02-8000-000000000001'] }),
    platformCustomerId: Type.String(),
    customerType: enumOf(CUSTOMER_TYPES),
    region: Type.Optional(Type.String()),
    ...commonFields,
    umaAddress: Type.String({ description: 'Always present: the one given, or the one the sandbox assigned (lower case)' }),
    ...Object.fromEntries(Object.entries(individualFields).filter(([k]) => k !== 'identifier')),
    businessInfo: Type.Optional(BusinessInfoResponse),
    kycStatus: Type.Optional(enumOf(KYC_STATUSES, 'INDIVIDUAL customers; in the sandbox set at creation by the last three characters of fullName (001 PENDING, 002 REJECTED, 003 UNVERIFIED, else APPROVED), in production UNVERIFIED; then moved by POST /verifications')),
    kybStatus: Type.Optional(enumOf(KYC_STATUSES, 'BUSINESS customers; starts UNVERIFIED; decided by POST /verifications (in the sandbox by the last three characters of businessInfo.registrationNumber)')),
    contactVerification: Type.Optional(
      Type.Object(
        { email: Type.Optional(enumOf(['PENDING', 'VERIFIED'])), phone: Type.Optional(enumOf(['PENDING', 'VERIFIED'])) },
        { description: 'Only for customers whose region requires contact verification (the European Economic Area): each channel PENDING until confirmed with its code, back to PENDING when its value changes' },
      ),
    ),
    hostedKybAnswers: Type.Optional(
      Type.Object(
        { beneficialOwnerName: Type.String(), formationDocument: Type.String() },
        {
          ...extension('The property hostedKybAnswers'),
          description: "BUSINESS customers: what the person gave on the hosted KYC page (POST /customers/{customerId}/kyc-link) when it asked (registrationNumber ending 001 or 003): a beneficial owner's or control person's full name and the formation document's file name",
        },
      ),
    ),
    isDeleted: Type.Boolean({ description: 'True once deleted; a deleted customer stays readable' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A customer (individual or business) of the platform' },
);

const dateTimeFilter = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));

export const ListCustomersQuery = Type.Object(
  {
    ...PageQuerySchema,
    platformCustomerId: Type.Optional(text(128)),
    customerType: Type.Optional(enumOf(CUSTOMER_TYPES)),
    createdAfter: dateTimeFilter('Created at or after this time'),
    createdBefore: dateTimeFilter('Created at or before this time'),
    updatedAfter: dateTimeFilter('Last updated at or after this time'),
    updatedBefore: dateTimeFilter('Last updated at or before this time'),
    region: Type.Optional(CountryCodeSchema('ISO 3166-1 alpha-2')),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{3,5}$', description: 'Customers whose currencies include this one' })),
    umaAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Exact UMA address (case-insensitive)' })),
    isIncludingDeleted: Type.Optional(Type.Boolean({ default: false, description: 'Include deleted customers; default false' })),
  },
  { additionalProperties: false },
);
