import { Type } from 'typebox';
import { errorResponses, pageSchema } from '../schemas/common.js';
import {
  CreateExternalAccountBody,
  CreatePlatformExternalAccountBody,
  ExternalAccountIdParamSchema,
  ExternalAccountSchema,
  ListExternalAccountsQuery,
  ListPlatformExternalAccountsQuery,
  OwnershipChallengeBody,
  OwnershipChallengeSchema,
  OwnershipVerifyBody,
} from '../schemas/external-accounts.js';
import type { ExternalAccountScope } from '../domain/external-accounts/external-accounts.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import type { ApiInstance, RouteModule } from './types.js';
import type { Services } from '../services.js';

const tags = ['External Accounts'];
// The 46-variant accountInfo union is documented, not compiled into a serializer (which would test each branch per item): render builds exactly the answer.
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);
const NOT_FOUND = "Unknown, deleted, or another platform's, environment's or owner's account: 404 REFERENCE_NOT_FOUND.";
const CHECKS =
  'accountInfo is the variant its accountType names, with that variant\'s required fields and patterns; IBANs, ABA routing numbers, CLABEs, CPF/CNPJ and PIX keys, ' +
  'and wallet addresses and lightning invoices are checked for their checksums, every invalid field in one 400 naming it (accountInfo.iban, ...). ' +
  'A bank account type takes only its currency. The same type and identifier twice for one owner: 409 CONFLICT. ' +
  'Sandbox: the identifier\'s last three digits choose beneficiaryVerificationStatus (102 NOT_MATCHED, 103 PARTIAL_MATCH, 104 PENDING, 106 UNSUPPORTED, 107 CHECKED_BY_RECEIVING_FI, else MATCHED); 105 is 400 INVALID_BANK_ACCOUNT.';

/** The six operations of one family of paths: /customers/external-accounts or /platform/external-accounts. */
function registerFamily(app: ApiInstance, { externalAccounts, ownershipVerification }: Services, scope: ExternalAccountScope) {
  const base = scope === 'platform' ? '/platform/external-accounts' : '/customers/external-accounts';
  const whose = scope === 'platform' ? "the platform's own" : "customers'";
  const item = `${base}/:externalAccountId`;

  if (scope === 'platform') {
    app.get(
      base,
      {
        config: { permission: 'VIEW' },
        serializerCompiler,
        schema: { tags, summary: `List ${whose} external accounts`, description: 'Oldest first, keyset-paginated.', querystring: ListPlatformExternalAccountsQuery, response: { 200: pageSchema(ExternalAccountSchema, 'A page of external accounts'), ...errorResponses(400) } },
      },
      async (request) => {
        const { limit, cursor, currency } = request.query;
        return externalAccounts.list(request.principal.platformId, scope, limit ?? 20, cursor, { currency });
      },
    );
    app.post(
      base,
      {
        config: { permission: 'TRANSACT', references: (request) => externalAccounts.referenceErrors(request.principal.platformId, request.body ?? {}, requestUnitOfWork(request)) },
        serializerCompiler,
        schema: { tags, summary: 'Add a platform external account', description: CHECKS, body: CreatePlatformExternalAccountBody, response: { 201: ExternalAccountSchema, ...errorResponses(400, 409, 415) } },
      },
      async (request, reply) => {
        const account = await externalAccounts.create(request.principal.platformId, request.principal.environment, request.body, requestUnitOfWork(request));
        return reply.code(201).send(account);
      },
    );
  } else {
    app.get(
      base,
      {
        config: { permission: 'VIEW' },
        serializerCompiler,
        schema: { tags, summary: `List ${whose} external accounts`, description: 'Oldest first, keyset-paginated; an unknown or foreign customerId matches nothing.', querystring: ListExternalAccountsQuery, response: { 200: pageSchema(ExternalAccountSchema, 'A page of external accounts'), ...errorResponses(400) } },
      },
      async (request) => {
        const { limit, cursor, currency, customerId } = request.query;
        return externalAccounts.list(request.principal.platformId, scope, limit ?? 20, cursor, { currency, customerId });
      },
    );
    app.post(
      base,
      {
        config: { permission: 'TRANSACT', references: (request) => externalAccounts.referenceErrors(request.principal.platformId, request.body ?? {}, requestUnitOfWork(request)) },
        serializerCompiler,
        schema: {
          tags,
          summary: 'Add an external account',
          description: `For customerId (a customer of this platform, else 400 on customerId); without it the account is the platform's own. ${CHECKS}`,
          body: CreateExternalAccountBody,
          response: { 201: ExternalAccountSchema, ...errorResponses(400, 409, 415) },
        },
      },
      async (request, reply) => {
        const account = await externalAccounts.create(request.principal.platformId, request.principal.environment, request.body, requestUnitOfWork(request));
        return reply.code(201).send(account);
      },
    );
  }

  app.get(
    item,
    { config: { permission: 'VIEW' }, serializerCompiler, schema: { tags, summary: `Get one of ${whose} external accounts`, description: NOT_FOUND, params: ExternalAccountIdParamSchema, response: { 200: ExternalAccountSchema, ...errorResponses(400, 404) } } },
    async (request) => externalAccounts.get(request.principal.platformId, scope, request.params.externalAccountId),
  );

  app.delete(
    item,
    { config: { permission: 'TRANSACT' }, serializerCompiler, schema: { tags, summary: `Delete one of ${whose} external accounts`, description: `It reads as unknown afterwards. ${NOT_FOUND}`, params: ExternalAccountIdParamSchema, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 404) } } },
    async (request, reply) => {
      await externalAccounts.delete(request.principal.platformId, scope, request.params.externalAccountId, requestUnitOfWork(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${item}/challenge`,
    {
      config: { permission: 'TRANSACT' },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Start an ownership verification challenge',
        description:
          'For a FIRST_PARTY self-custody wallet (no vaspName) in PENDING_OWNERSHIP_VERIFICATION or UNVERIFIED, else 409 INVALID_STATE_TRANSITION. Replaces any outstanding challenge; UNVERIFIED returns to PENDING_OWNERSHIP_VERIFICATION. ' +
          `Sandbox: a LIVENESS challenge completes by itself (ACTIVE, EXTERNAL_ACCOUNT.STATUS_UPDATED) after SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS. ${NOT_FOUND}`,
        params: ExternalAccountIdParamSchema,
        body: OwnershipChallengeBody,
        response: { 201: OwnershipChallengeSchema, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const { platformId, environment } = request.principal;
      const challenge = await ownershipVerification.challenge(platformId, environment, scope, request.params.externalAccountId, request.body.method, requestUnitOfWork(request));
      return reply.code(201).send(challenge);
    },
  );

  app.post(
    `${item}/verify`,
    {
      // A refused signature moves the account to UNVERIFIED: that change stands with the 400.
      config: { permission: 'TRANSACT', refusalKeepsWrites: true },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Verify ownership with a wallet signature',
        description:
          'Completes the outstanding WALLET_SIGNATURE challenge (none: 409 INVALID_STATE_TRANSITION): the account becomes ACTIVE. An expired challenge, or (sandbox) the signature "invalid", ' +
          `moves it to UNVERIFIED and answers 400 INVALID_INPUT on signature. ${NOT_FOUND}`,
        params: ExternalAccountIdParamSchema,
        body: OwnershipVerifyBody,
        response: { 200: ExternalAccountSchema, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => ownershipVerification.verify(request.principal.platformId, scope, request.params.externalAccountId, request.body.signature, requestUnitOfWork(request)),
  );
}

export const externalAccountRoutes: RouteModule = (app, services) => {
  registerFamily(app, services, 'customers');
  registerFamily(app, services, 'platform');
};
