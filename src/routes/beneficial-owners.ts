import type { BeneficialOwnerPatch, NewBeneficialOwner, OwnerPage } from '../domain/customers/beneficial-owners.js';
import { BeneficialOwnerSchema, CreateOwnerBody, ListOwnersQuery, PatchOwnerBody } from '../schemas/beneficial-owners.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { memberOf, type RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Owner JSON is rendered at write time; Fastify sends a string or Buffer as is (the schema documents it). */
const asRendered = (json: string | Buffer) => json as never;

const DATA_OPEN = Buffer.from('{"data":[');

/** The list envelope around owners that are already JSON bytes: one copy, no serializer pass. */
function pageJson(page: OwnerPage): Buffer {
  const more = page.hasMore ? `true,"nextCursor":"${page.nextCursor!}"` : 'false';
  return Buffer.concat([DATA_OPEN, page.ownersJson, Buffer.from(`],"hasMore":${more},"totalCount":${page.totalCount}}`)]);
}

const tags = ['KYC/KYB Verifications'];

export const beneficialOwnerRoutes: RouteModule = (app, { beneficialOwners }) => {
  app.post(
    '/beneficial-owners',
    {
      config: { permission: 'TRANSACT', references: (request) => beneficialOwners.referenceErrors(request.principal.platformId, memberOf(request.body, 'customerId'), requestUnitOfWork(request)) },
      schema: {
        tags,
        summary: 'Create a beneficial owner',
        description:
          'Adds an owner to a BUSINESS customer of the platform. customerId unknown or of another platform: 404 USER_NOT_FOUND; a deleted customer: 410 CUSTOMER_DELETED; ' +
          'an INDIVIDUAL customer: 400 on field customerId. kycStatus starts UNVERIFIED.',
        body: CreateOwnerBody,
        response: { 201: BeneficialOwnerSchema, ...errorResponses(400, 404, 410, 415) },
      },
    },
    async (request, reply) => {
      const json = await beneficialOwners.create(request.principal.platformId, request.body as NewBeneficialOwner, requestUnitOfWork(request));
      return reply.code(201).type(JSON_TYPE).send(asRendered(json));
    },
  );

  app.get(
    '/beneficial-owners',
    {
      config: {
        permission: 'VIEW',
        confirmsToken: true,
        references: (request) => beneficialOwners.referenceErrors(request.principal.platformId, memberOf(request.query, 'customerId')),
      },
      schema: {
        tags,
        summary: 'List beneficial owners',
        description:
          'Owners of a business customer, oldest first (ties by id). customerId unknown, of another platform or not a BUSINESS: 400 on customerId. ' +
          'A cursor is bound to the platform and customerId; any other cursor is a 400 on cursor. limit may change between pages.',
        querystring: ListOwnersQuery,
        response: { 200: pageSchema(BeneficialOwnerSchema, 'A page of beneficial owners'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { customerId, limit, cursor } = request.query;
      const { tokenId, platformId } = request.principal;
      const page = await beneficialOwners.list(tokenId, platformId, customerId, limit ?? 20, cursor);
      return reply.type(JSON_TYPE).send(asRendered(pageJson(page)));
    },
  );

  app.get(
    '/beneficial-owners/:id',
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get a beneficial owner', params: IdParamSchema, response: { 200: BeneficialOwnerSchema, ...errorResponses(400, 404) } } },
    async (request, reply) => reply.type(JSON_TYPE).send(asRendered(await beneficialOwners.get(request.principal.platformId, request.params.id))),
  );

  app.patch(
    '/beneficial-owners/:id',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Update a beneficial owner',
        description: 'Only the given fields change, with the same rules as on creation; updatedAt is set.',
        params: IdParamSchema,
        body: PatchOwnerBody,
        response: { 200: BeneficialOwnerSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request, reply) => {
      const json = await beneficialOwners.update(request.principal.platformId, request.params.id, request.body as BeneficialOwnerPatch, requestUnitOfWork(request));
      return reply.type(JSON_TYPE).send(asRendered(json));
    },
  );
};
