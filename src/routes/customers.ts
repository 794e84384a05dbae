import { customerRuleErrors, type NewCustomer } from '../domain/customers.js';
import { ValidationError, type FieldError } from '../domain/errors.js';
import { fieldErrorsFromAjv } from '../http/validation.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { CreateCustomerBody, CustomerSchema, ListCustomersQuery } from '../schemas/customers.js';
import type { RouteModule } from './types.js';

const tags = ['Customers'];

export const customerRoutes: RouteModule = (app, { customers }) => {
  app.post(
    '/customers',
    {
      config: { permission: 'TRANSACT' },
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
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List customers',
        querystring: ListCustomersQuery,
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
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get a customer', params: IdParamSchema, response: { 200: CustomerSchema, ...errorResponses(400, 404) } } },
    async (request) => customers.get(request.principal.platformId, request.params.id),
  );
};
