import type { FastifyRequest } from 'fastify';
import { customerRuleErrors, type CustomerListFilter, type CustomerPatch, type NewCustomer } from '../domain/customers/customers.js';
import { ValidationError, type FieldError } from '../domain/shared/errors.js';
import { ApiError } from '../http/api-error.js';
import { fieldErrorsFromAjv } from '../http/validation.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { CreateCustomerBody, CustomerSchema, ListCustomersQuery, PatchCustomerBody } from '../schemas/customers.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

const tags = ['Customers'];

/**
 * Schema failures and the cross-field rules, reported together, one entry per field. A malformed
 * umaAddress alone is the interface's INVALID_UMA_ADDRESS; with other failures it is one of them.
 */
function checkBody(request: FastifyRequest, change: boolean): void {
  const failed = request.validationError as unknown as { validation: never; validationContext?: string } | undefined;
  const context = failed?.validationContext ?? 'body';
  const errors: FieldError[] = failed ? fieldErrorsFromAjv(failed.validation, context) : [];
  // The path is checked before the body: a bad id is reported alone.
  if (context !== 'body') throw new ValidationError(errors);
  const body = request.body;
  const seen = new Set(errors.map((e) => e.field));
  if (typeof body === 'object' && body !== null) for (const e of customerRuleErrors(body as Record<string, unknown>, change)) if (!seen.has(e.field)) errors.push(e);
  if (errors.length === 0) return;
  if (errors.every((e) => e.field === 'umaAddress')) {
    throw new ApiError('INVALID_UMA_ADDRESS', 'Invalid umaAddress: must be $user@domain (letters, digits and . _ + - before the @)', { errors });
  }
  throw new ValidationError(errors);
}

export const customerRoutes: RouteModule = (app, { customers }) => {
  app.post(
    '/customers',
    {
      config: { permission: 'TRANSACT' },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Create a customer',
        description:
          'In the sandbox an INDIVIDUAL gets its kycStatus at creation from the last three characters of fullName (001 PENDING, 002 REJECTED, 003 UNVERIFIED, any other APPROVED), ' +
          'with its CUSTOMER.KYC_* webhook; a BUSINESS starts with kybStatus UNVERIFIED and is decided by POST /verifications. In production both start UNVERIFIED. Without umaAddress the sandbox assigns one ($c<id>@ the platform\'s umaDomain, or sandbox.uma.invalid); ' +
          'without platformCustomerId one is generated. An active customer of the platform already holding the platformCustomerId: 409 CONFLICT; the UMA address: 409 UMA_ADDRESS_EXISTS.',
        body: CreateCustomerBody,
        response: { 201: CustomerSchema, ...errorResponses(400, 409, 415) },
      },
    },
    async (request, reply) => {
      checkBody(request, false);
      return reply.code(201).send(await customers.create(request.principal.platformId, request.principal.environment, request.body as NewCustomer, requestUnitOfWork(request)));
    },
  );

  app.get(
    '/customers',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List customers',
        description: 'Oldest first (ties by id). Every filter narrows the list; deleted customers only with isIncludingDeleted=true. A cursor is bound to the filters it was issued for.',
        querystring: ListCustomersQuery,
        response: { 200: pageSchema(CustomerSchema, 'A page of customers, oldest first'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      return customers.list(request.principal.platformId, limit ?? 20, cursor, filter as CustomerListFilter);
    },
  );

  app.get(
    '/customers/:id',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get a customer',
        description: 'A deleted customer stays readable, with isDeleted true. Unknown or of another platform: 404 USER_NOT_FOUND.',
        params: IdParamSchema,
        response: { 200: CustomerSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => customers.get(request.principal.platformId, request.params.id),
  );

  app.patch(
    '/customers/:id',
    {
      config: { permission: 'TRANSACT' },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Update a customer',
        description:
          "customerType must be the customer's. Only the fields given change, with the rules of creation (businessInfo field by field; currencies and address as a whole); updatedAt is set. " +
          'email and phoneNumber change in separate requests. platformCustomerId and region do not change. A deleted customer: 410 CUSTOMER_DELETED.',
        params: IdParamSchema,
        body: PatchCustomerBody,
        response: { 200: CustomerSchema, ...errorResponses(400, 404, 409, 410, 415) },
      },
    },
    async (request) => {
      checkBody(request, true);
      return customers.update(request.principal.platformId, request.params.id, request.body as CustomerPatch, requestUnitOfWork(request));
    },
  );

  app.delete(
    '/customers/:id',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Delete a customer',
        description:
          'Soft delete: answers the customer with isDeleted true; it stays readable, leaves the lists (unless isIncludingDeleted=true) and frees its platformCustomerId and UMA address. Deleted already: 410 CUSTOMER_DELETED.',
        params: IdParamSchema,
        response: { 200: CustomerSchema, ...errorResponses(400, 404, 410) },
      },
    },
    async (request) => customers.delete(request.principal.platformId, request.params.id),
  );
};
