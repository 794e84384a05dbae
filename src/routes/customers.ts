import { Type } from 'typebox';
import { KYC_STATUSES } from '../domain/beneficial-owners.js';
import { CUSTOMER_TYPES, customerRuleErrors, ENTITY_TYPES, type NewCustomer } from '../domain/customers.js';
import { ValidationError, type FieldError } from '../domain/errors.js';
import { errorResponses, IdParamSchema, pageSchema, PageQuerySchema } from '../http/schemas.js';
import { fieldErrorsFromAjv } from '../http/validation.js';
import type { RouteModule } from './types.js';

export const CountryCodeSchema = (description: string) => Type.String({ format: 'iso3166-1-alpha-2', description });
export const PhoneNumberSchema = Type.String({ pattern: '^\\+[1-9]\\d{1,14}$', format: 'e.164', description: 'E.164, e.g. +14155550123' });
export const EmailSchema = Type.String({ format: 'email', maxLength: 254 });
export const PastDateSchema = (description: string) => Type.String({ format: 'date', 'x-past': true, description });
const text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

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

const CreateCustomerBody = Type.Object(
  {
    customerType: Type.Enum([...CUSTOMER_TYPES]),
    platformCustomerId: Type.Optional(text(128, 'Your identifier for the customer; generated when absent')),
    ...customerFields,
  },
  { additionalProperties: false, description: 'A BUSINESS needs businessInfo (legalName, incorporatedOn, taxId) and address' },
);

const CustomerSchema = Type.Object(
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

const tags = ['Customers'];

export const customerRoutes: RouteModule = (app, { customers }) => {
  app.post(
    '/customers',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Create a customer',
        description: 'KYC (individual) or KYB (business) status starts UNVERIFIED.',
        body: CreateCustomerBody,
        response: { 201: CustomerSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      // Schema failures and the cross-field rules are reported together, one entry per field.
      const errors: FieldError[] = request.validationError
        ? fieldErrorsFromAjv((request.validationError as unknown as { validation: never }).validation, 'body')
        : [];
      const body = (request.body ?? {}) as Record<string, unknown>;
      const seen = new Set(errors.map((e) => e.field));
      for (const e of customerRuleErrors(typeof body === 'object' ? body : {})) if (!seen.has(e.field)) errors.push(e);
      if (errors.length > 0) throw new ValidationError(errors);
      return reply.code(201).send(await customers.create(request.principal.platformId, request.body as NewCustomer));
    },
  );

  app.get(
    '/customers',
    {
      schema: {
        tags,
        summary: 'List customers',
        querystring: Type.Object(
          { ...PageQuerySchema, platformCustomerId: Type.Optional(text(128)), customerType: Type.Optional(Type.Enum([...CUSTOMER_TYPES])) },
          { additionalProperties: false },
        ),
        response: { 200: pageSchema(CustomerSchema, 'A page of customers, oldest first'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, platformCustomerId, customerType } = request.query;
      return customers.list(request.principal.platformId, limit ?? 20, cursor, { platformCustomerId, customerType });
    },
  );

  app.get(
    '/customers/:id',
    { schema: { tags, summary: 'Get a customer', params: IdParamSchema, response: { 200: CustomerSchema, ...errorResponses(400, 404) } } },
    async (request) => customers.get(request.principal.platformId, request.params.id),
  );
};
