import { errorResponses } from '../schemas/common.js';
import { ClaimInvitationBody, CreateInvitationBody, InvitationCodeParams, UmaInvitationSchema } from '../schemas/invitations.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import type { RouteModule } from './types.js';

const tags = ['Invitations'];
const NOT_FOUND = "Unknown or another platform's code: 404 INVITATION_NOT_FOUND.";

export const invitationRoutes: RouteModule = (app, { invitations }) => {
  app.post(
    '/invitations',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Create an UMA invitation',
        description: "inviterUma must be a customer of this platform's UMA address (a malformed one: 400 INVALID_UMA_ADDRESS); expiresAt later than now on the platform's clock.",
        body: CreateInvitationBody,
        response: { 201: UmaInvitationSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await invitations.create(request.principal.platformId, request.body, requestUnitOfWork(request))),
  );

  app.get(
    '/invitations/:invitationCode',
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get an UMA invitation', description: NOT_FOUND, params: InvitationCodeParams, response: { 200: UmaInvitationSchema, ...errorResponses(400, 404) } } },
    async (request) => invitations.get(request.principal.platformId, request.params.invitationCode),
  );

  app.post(
    '/invitations/:invitationCode/claim',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Claim an UMA invitation',
        description: `A PENDING invitation becomes CLAIMED by inviteeUma (not the inviter's) and INVITATION.CLAIMED is sent, in one commit. Claimed already: 400 INVITATION_ALREADY_CLAIMED; cancelled or expired: 400 INVITATION_CANCELLED. ${NOT_FOUND}`,
        params: InvitationCodeParams,
        body: ClaimInvitationBody,
        response: { 200: UmaInvitationSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => invitations.claim(request.principal.platformId, request.params.invitationCode, request.body.inviteeUma, requestUnitOfWork(request)),
  );

  app.post(
    '/invitations/:invitationCode/cancel',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Cancel an UMA invitation',
        description: `A PENDING invitation becomes CANCELLED. Claimed already: 400 INVITATION_ALREADY_CLAIMED; cancelled or expired: 400 INVITATION_CANCELLED. ${NOT_FOUND}`,
        params: InvitationCodeParams,
        response: { 200: UmaInvitationSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => invitations.cancel(request.principal.platformId, request.params.invitationCode, requestUnitOfWork(request)),
  );
};
