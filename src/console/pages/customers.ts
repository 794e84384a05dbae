import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NewBeneficialOwner } from '../../domain/customers/beneficial-owners.js';
import { CUSTOMER_TYPES, type NewCustomer } from '../../domain/customers/customers.js';
import type { CreateCardInput } from '../../domain/cards/cards.js';
import { ValidationError, type FieldError } from '../../domain/shared/errors.js';
import type { Services } from '../../services.js';
import { checkFund, checkNewCard, checkNewCustomer, checkNewOwner, fundForm, issueCardForm, NEW_BUSINESS, NEW_INDIVIDUAL, newOwnerForm, verifyForm } from '../create-forms.js';
import { formFailure, readForm, type FormSpec, type FormState } from '../forms.js';
import { renderPage, requirePermission, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { listQuery, PAGE_SIZE } from './list-query.js';

const DECIDED = ['APPROVED', 'REJECTED'];

async function customersPage(services: Services, request: FastifyRequest, reply: FastifyReply, form?: FormState) {
  const { platformId } = sessionOf(request);
  const { cursor, filters } = listQuery(request.method === 'GET' ? request.query : {}, { customerType: CUSTOMER_TYPES, platformCustomerId: 'text' });
  const page = await services.customers.list(platformId, PAGE_SIZE, cursor, filters as never);
  if (form) reply.code(form.status);
  return renderPage(request, reply, 'customers', { title: 'Customers', page, filters, cursor, customerTypes: CUSTOMER_TYPES, forms: [NEW_BUSINESS, NEW_INDIVIDUAL], form });
}

async function customerPage(services: Services, request: FastifyRequest, reply: FastifyReply, id: string, form?: FormState) {
  const { platformId, tokenId } = sessionOf(request);
  const customer = await services.customers.get(platformId, id);
  const [accounts, cards, owners, verifications] = await Promise.all([
    services.internalAccounts.list(platformId, 100, undefined, { customerId: id }),
    services.cards.list(platformId, 100, undefined, { cardholderId: id, sortOrder: 'desc' }),
    customer.customerType === 'BUSINESS' ? services.beneficialOwners.list(tokenId, platformId, id, 100, undefined) : undefined,
    services.verifications.list(platformId, 100, undefined, { customerId: id }),
  ]);
  const ownerList = owners ? (JSON.parse(`[${owners.ownersJson.toString('utf8')}]`) as Record<string, unknown>[]) : [];
  const status = customer.kybStatus ?? customer.kycStatus ?? '';
  const forms: FormSpec[] = [
    ...(customer.customerType === 'BUSINESS' ? [newOwnerForm(id)] : []),
    ...(DECIDED.includes(status) ? [] : [verifyForm(id)]),
    ...(accounts.data.length > 0 ? [fundForm(id, accounts.data), issueCardForm(id, accounts.data)] : []),
  ];
  const query = (request.method === 'GET' ? request.query : {}) as Record<string, string | undefined>;
  const funded = accounts.data.find((a) => a.id === query.funded);
  const notice = query.created
    ? `Customer created: ${customer.customerType === 'BUSINESS' ? `kybStatus ${status}` : `kycStatus ${status}`}.`
    : query.owner
      ? `Beneficial owner ${query.owner} added.`
        : undefined;
  if (form) reply.code(form.status);
  return renderPage(request, reply, 'customer', {
    title: `Customer ${customer.id}`,
    customer,
    accounts: accounts.data,
    cards: cards.data,
    owners: ownerList,
    // Newest first: the one just submitted on top.
    verifications: [...verifications.data].reverse(),
    latestVerification: query.verification,
    forms,
    form,
    notice,
    funded,
  });
}

export const customerPages: PageModule = (scope, { services }) => {
  scope.get('/customers', async (request, reply) => customersPage(services, request, reply));

  scope.get('/customers/:id', async (request, reply) => customerPage(services, request, reply, (request.params as { id: string }).id));

  // The same service as POST /customers, after the same schema and rules: the sandbox KYC suffixes apply.
  scope.post('/customers/new/:type', async (request, reply) => {
    const { platformId, environment } = requirePermission(request, 'TRANSACT');
    const type = (request.params as { type: string }).type;
    const spec = type === 'BUSINESS' ? NEW_BUSINESS : type === 'INDIVIDUAL' ? NEW_INDIVIDUAL : undefined;
    if (!spec) return reply.callNotFound();
    const { values, body } = readForm(spec, request.body);
    try {
      const input = { customerType: type, ...body };
      checkNewCustomer(input);
      const customer = await services.customers.create(platformId, environment, input as unknown as NewCustomer);
      return reply.redirect(`/console/customers/${encodeURIComponent(customer.id)}?created=1`, 303);
    } catch (err) {
      return customersPage(services, request, reply, formFailure(err, request, spec.id, values));
    }
  });

  scope.post('/customers/:id/beneficial-owners', async (request, reply) => {
    const { platformId } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    const spec = newOwnerForm(id);
    const { values, body } = readForm(spec, request.body);
    try {
      const input = { customerId: id, ...body };
      checkNewOwner(input);
      const owner = JSON.parse((await services.beneficialOwners.create(platformId, input as unknown as NewBeneficialOwner)).toString()) as { id: string };
      return reply.redirect(`/console/customers/${encodeURIComponent(id)}?owner=${encodeURIComponent(owner.id)}`, 303);
    } catch (err) {
      return customerPage(services, request, reply, id, formFailure(err, request, spec.id, values));
    }
  });

  scope.post('/customers/:id/verifications', async (request, reply) => {
    const { platformId, environment } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    try {
      const verification = await services.verifications.create(platformId, environment, id);
      return reply.redirect(`/console/customers/${encodeURIComponent(id)}?verification=${encodeURIComponent(verification.id)}#verifications`, 303);
    } catch (err) {
      return customerPage(services, request, reply, id, formFailure(err, request, 'verify', {}));
    }
  });

  scope.post('/customers/:id/fund', async (request, reply) => {
    const { platformId } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    const spec = fundForm(id, []);
    const { values, body } = readForm(spec, request.body);
    try {
      const { accountId, ...input } = body;
      const errors: FieldError[] = accountId === undefined ? [{ field: 'accountId', message: 'is required' }] : [];
      try {
        checkFund(input);
      } catch (err) {
        if (err instanceof ValidationError) errors.push(...err.errors);
        else throw err;
      }
      if (errors.length > 0) throw new ValidationError(errors);
      // The account must be this customer's: the form offers no other.
      const accounts = await services.internalAccounts.list(platformId, 100, undefined, { customerId: id });
      if (!accounts.data.some((a) => a.id === accountId)) throw new ValidationError([{ field: 'accountId', message: "is not one of this customer's internal accounts" }]);
      await services.internalAccounts.fund(platformId, accountId as string, input.amount as number);
      return reply.redirect(`/console/customers/${encodeURIComponent(id)}?funded=${encodeURIComponent(accountId as string)}`, 303);
    } catch (err) {
      return customerPage(services, request, reply, id, formFailure(err, request, spec.id, values));
    }
  });

  scope.post('/customers/:id/cards', async (request, reply) => {
    const { platformId, environment } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    const spec = issueCardForm(id, []);
    const { values, body } = readForm(spec, request.body);
    try {
      const input = { cardholderId: id, form: 'VIRTUAL', ...body };
      checkNewCard(input);
      const card = await services.cards.create(platformId, environment, input as unknown as CreateCardInput);
      return reply.redirect(`/console/cards/${encodeURIComponent(card.id)}?issued=1`, 303);
    } catch (err) {
      return customerPage(services, request, reply, id, formFailure(err, request, spec.id, values));
    }
  });
};
