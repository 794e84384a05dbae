import { Type } from 'typebox';
import { ID_TYPES, KYC_STATUSES, OWNER_ROLES, type BeneficialOwnerPatch, type NewBeneficialOwner, type OwnerPage } from '../domain/beneficial-owners.js';
import { errorResponses, IdParamSchema, pageSchema, PageQuerySchema } from '../http/schemas.js';
import { AddressSchema, CountryCodeSchema, EmailSchema, PastDateSchema, PhoneNumberSchema } from './customers.js';
import type { RouteModule } from './types.js';

const name = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

const personalInfoFields = {
  firstName: name('First name'),
  middleName: Type.Optional(name('Middle name')),
  lastName: name('Last name'),
  birthDate: PastDateSchema('Date of birth, YYYY-MM-DD, in the past'),
  nationality: CountryCodeSchema('ISO 3166-1 alpha-2 country code'),
  email: Type.Optional(EmailSchema),
  phoneNumber: Type.Optional(PhoneNumberSchema),
  address: AddressSchema,
  idType: Type.Enum([...ID_TYPES]),
  identifier: Type.String({ minLength: 1, maxLength: 64, description: 'The identification number or value' }),
  countryOfIssuance: Type.Optional(CountryCodeSchema('ISO 3166-1 alpha-2 code of the country that issued the identification')),
};

const PersonalInfoSchema = Type.Object(personalInfoFields, { additionalProperties: false });
const PersonalInfoPatchSchema = Type.Partial(PersonalInfoSchema, { additionalProperties: false, description: 'Only the given fields change; address, if given, is replaced whole' });
const RolesSchema = Type.Array(Type.Enum([...OWNER_ROLES]), { minItems: 1, uniqueItems: true, description: 'Roles of the person within the business; at least one, no duplicates' });
const OwnershipSchema = Type.Integer({ minimum: 0, maximum: 100, description: 'Percentage of ownership, 0 to 100' });

export const BeneficialOwnerSchema = Type.Object(
  {
    id: Type.String({ examples: ['BeneficialOwner:019542f5-b3e7-7d02-8000-000000000001'] }),
    customerId: Type.String({ description: 'The business customer the owner belongs to' }),
    roles: Type.Array(Type.Enum([...OWNER_ROLES])),
    ownershipPercentage: OwnershipSchema,
    personalInfo: PersonalInfoSchema,
    kycStatus: Type.Enum([...KYC_STATUSES]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { description: 'A natural person associated with a business customer' },
);

const CreateBody = Type.Object(
  { customerId: Type.String({ minLength: 1, maxLength: 128 }), roles: RolesSchema, ownershipPercentage: OwnershipSchema, personalInfo: PersonalInfoSchema },
  { additionalProperties: false },
);

const PatchBody = Type.Object(
  { roles: Type.Optional(RolesSchema), ownershipPercentage: Type.Optional(OwnershipSchema), personalInfo: Type.Optional(PersonalInfoPatchSchema) },
  { additionalProperties: false, minProperties: 1 },
);

const ListQuery = Type.Object(
  { customerId: Type.String({ minLength: 1, maxLength: 128, description: 'The business customer identifier' }), ...PageQuerySchema },
  { additionalProperties: false },
);

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
      schema: {
        tags,
        summary: 'Create a beneficial owner',
        description: 'Adds an owner to a BUSINESS customer of the platform; any other customerId is a 400 on field customerId. kycStatus starts UNVERIFIED.',
        body: CreateBody,
        response: { 201: BeneficialOwnerSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      const json = await beneficialOwners.create(request.principal.platformId, request.body as NewBeneficialOwner);
      return reply.code(201).type(JSON_TYPE).send(asRendered(json));
    },
  );

  app.get(
    '/beneficial-owners',
    {
      schema: {
        tags,
        summary: 'List beneficial owners',
        description:
          'Owners of a business customer, oldest first (ties by id). customerId unknown, of another platform or not a BUSINESS: 400 on customerId. ' +
          'A cursor is bound to the platform and customerId; any other cursor is a 400 on cursor. limit may change between pages.',
        querystring: ListQuery,
        response: { 200: pageSchema(BeneficialOwnerSchema, 'A page of beneficial owners'), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { customerId, limit, cursor } = request.query;
      const page = await beneficialOwners.list(request.principal.platformId, customerId, limit ?? 20, cursor);
      return reply.type(JSON_TYPE).send(asRendered(pageJson(page)));
    },
  );

  app.get(
    '/beneficial-owners/:id',
    { schema: { tags, summary: 'Get a beneficial owner', params: IdParamSchema, response: { 200: BeneficialOwnerSchema, ...errorResponses(400, 404) } } },
    async (request, reply) => reply.type(JSON_TYPE).send(asRendered(await beneficialOwners.get(request.principal.platformId, request.params.id))),
  );

  app.patch(
    '/beneficial-owners/:id',
    {
      schema: {
        tags,
        summary: 'Update a beneficial owner',
        description: 'Only the given fields change, with the same rules as on creation; updatedAt is set.',
        params: IdParamSchema,
        body: PatchBody,
        response: { 200: BeneficialOwnerSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request, reply) => {
      const json = await beneficialOwners.update(request.principal.platformId, request.params.id, request.body as BeneficialOwnerPatch);
      return reply.type(JSON_TYPE).send(asRendered(json));
    },
  );
};
