import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NewBeneficialOwner } from '../../domain/customers/beneficial-owners.js';
import { CUSTOMER_TYPES, type NewCustomer } from '../../domain/customers/customers.js';
import type { CreateCardInput } from '../../domain/cards/cards.js';
import type { Customer } from '../../domain/customers/render.js';
import type { NewDocument } from '../../domain/documents/documents.js';
import { fileErrors, type UploadedFile } from '../../domain/documents/file-types.js';
import { ValidationError, type FieldError } from '../../domain/shared/errors.js';
import { multipartBody, multipartErrors, multipartFile, multipartRequired, readBounded, registerMultipart } from '../../http/multipart-body.js';
import type { Services } from '../../services.js';
import { checkFund, checkNewCard, checkNewCustomer, checkNewOwner, checkUpload, fundForm, issueCardForm, NEW_BUSINESS, NEW_INDIVIDUAL, newOwnerForm, uploadDocumentForm, verifyForm } from '../create-forms.js';
import { formFailure, readForm, type FieldOption, type FormSpec, type FormState } from '../forms.js';
import { renderPage, requirePermission, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { listQuery, PAGE_SIZE } from './list-query.js';

const DECIDED = ['APPROVED', 'REJECTED'];

/** A business's owners (rendered JSON, as the API lists them); an individual has none. */
async function ownersOf(services: Services, request: FastifyRequest, customer: Customer): Promise<{ id: string; personalInfo: { firstName: string; lastName: string } }[]> {
  if (customer.customerType !== 'BUSINESS') return [];
  const { tokenId, platformId } = sessionOf(request);
  const owners = await services.beneficialOwners.list(tokenId, platformId, customer.id, 100, undefined);
  return JSON.parse(`[${owners.ownersJson.toString('utf8')}]`);
}

/** Who a document of this customer's page may belong to: the customer, or one of its owners. */
const holderOptions = (customer: Customer, owners: Awaited<ReturnType<typeof ownersOf>>): FieldOption[] => [
  { value: customer.id, label: `${(customer.businessInfo as { legalName?: string } | undefined)?.legalName ?? customer.fullName ?? customer.id} (the customer)` },
  ...owners.map((o) => ({ value: o.id, label: `${o.personalInfo.firstName} ${o.personalInfo.lastName} (beneficial owner)` })),
];

async function customersPage(services: Services, request: FastifyRequest, reply: FastifyReply, form?: FormState) {
  const { platformId } = sessionOf(request);
  const { cursor, filters } = listQuery(request.method === 'GET' ? request.query : {}, { customerType: CUSTOMER_TYPES, platformCustomerId: 'text' });
  const page = await services.customers.list(platformId, PAGE_SIZE, cursor, filters as never);
  if (form) reply.code(form.status);
  return renderPage(request, reply, 'customers', { title: 'Customers', page, filters, cursor, customerTypes: CUSTOMER_TYPES, forms: [NEW_BUSINESS, NEW_INDIVIDUAL], form });
}

async function customerPage(services: Services, request: FastifyRequest, reply: FastifyReply, id: string, form?: FormState) {
  const { platformId } = sessionOf(request);
  const customer = await services.customers.get(platformId, id);
  const [accounts, cards, ownerList, verifications] = await Promise.all([
    services.internalAccounts.list(platformId, 100, undefined, { customerId: id }),
    services.cards.list(platformId, 100, undefined, { cardholderId: id, sortOrder: 'desc' }),
    ownersOf(services, request, customer),
    services.verifications.list(platformId, 100, undefined, { customerId: id }),
  ]);
  const holders = holderOptions(customer, ownerList);
  const documents = (await Promise.all(holders.map((h) => services.documents.list(platformId, 100, undefined, h.value)))).flatMap((p) => p.data);
  const status = customer.kybStatus ?? customer.kycStatus ?? '';
  const forms: FormSpec[] = [
    ...(customer.customerType === 'BUSINESS' ? [newOwnerForm(id)] : []),
    ...(DECIDED.includes(status) ? [] : [verifyForm(id), uploadDocumentForm(id, holders)]),
    ...(accounts.data.length > 0 ? [fundForm(id, accounts.data), issueCardForm(id, accounts.data)] : []),
  ];
  const query = (request.method === 'GET' ? request.query : {}) as Record<string, string | undefined>;
  const funded = accounts.data.find((a) => a.id === query.funded);
  const notice = query.created
    ? `Customer created: ${customer.customerType === 'BUSINESS' ? `kybStatus ${status}` : `kycStatus ${status}`}.`
    : ownerList.some((o) => o.id === query.owner)
      ? `Beneficial owner ${query.owner} added.`
      : documents.some((d) => d.id === query.document)
        ? `Document ${query.document} uploaded.`
        : undefined;
  if (form) reply.code(form.status);
  return renderPage(request, reply, 'customer', {
    title: `Customer ${customer.id}`,
    customer,
    accounts: accounts.data,
    cards: cards.data,
    owners: ownerList,
    documents,
    holders,
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

/** The document upload: multipart, parsed in its own scope (only this form takes multipart), through the same service as POST /documents. */
export const documentUploadPage: PageModule = (scope, { services }) => {
  scope.register(async (uploads) => {
    await registerMultipart(uploads);
    const readUpload = multipartBody<UploadedFile>({
      fileField: 'file',
      maxFileBytes: () => services.config.documentMaxBytes,
      consume: async (request, part) => {
        const length = Number(request.headers['content-length']);
        const bytes = await readBounded(part.stream, Number.isSafeInteger(length) ? length : undefined, services.config.documentMaxBytes);
        return { fileName: part.fileName, declaredType: part.mimeType, bytes };
      },
    });
    uploads.post('/customers/:id/documents', { preValidation: readUpload }, async (request, reply) => {
      const { platformId } = requirePermission(request, 'TRANSACT');
      const { id } = request.params as { id: string };
      const spec = uploadDocumentForm(id, []);
      const { _csrf: _token, ...sent } = (request.body ?? {}) as Record<string, unknown>;
      const { values, body } = readForm(spec, sent);
      try {
        multipartRequired(request);
        const file = multipartFile<UploadedFile>(request);
        const errors: FieldError[] = [...multipartErrors(request)];
        const add = (more: FieldError[]) => more.filter((e) => !errors.some((x) => x.field === e.field)).forEach((e) => errors.push(e));
        try {
          checkUpload({ ...body, ...(file ? { file: file.fileName } : {}) });
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          add(err.errors);
        }
        if (file) add(fileErrors(file));
        const customer = await services.customers.get(platformId, id);
        const holders = holderOptions(customer, await ownersOf(services, request, customer));
        if (body.documentHolder !== undefined && !holders.some((h) => h.value === body.documentHolder)) add([{ field: 'documentHolder', message: 'is not this customer or one of its beneficial owners' }]);
        if (errors.length > 0) throw new ValidationError(errors);
        const document = await services.documents.upload(platformId, body as unknown as NewDocument, file!);
        return reply.redirect(`/console/customers/${encodeURIComponent(id)}?document=${encodeURIComponent(document.id)}#documents`, 303);
      } catch (err) {
        return customerPage(services, request, reply, id, formFailure(err, request, spec.id, values));
      }
    });
  });
};
