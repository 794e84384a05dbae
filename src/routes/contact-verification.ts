import type { FastifyRequest } from 'fastify';
import { MAX_WRONG_CONTACT_CODES, type ContactChannel, type ContactCodeRefusal } from '../domain/customers/contact-verification.js';
import { ValidationError } from '../domain/shared/errors.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses } from '../schemas/common.js';
import { ContactVerificationConfirmBody } from '../schemas/contact-verification.js';
import { CustomerSchema } from '../schemas/customers.js';
import { CustomerIdParamSchema } from '../schemas/sandbox-customers.js';
import type { RouteModule } from './types.js';

const tags = ['Contact Verification'];
const NAMES: Record<ContactChannel, { path: string; what: string; field: string }> = {
  email: { path: 'verify-email', what: 'email', field: 'email' },
  phone: { path: 'verify-phone', what: 'phone (SMS)', field: 'phoneNumber' },
};

const REFUSALS: Record<ContactCodeRefusal['reason'], string> = {
  NOT_SENT: 'no code has been sent for this channel: POST the send operation first',
  EXPIRED: 'the code has expired: POST the send operation for a new one',
  LOCKED: `${MAX_WRONG_CONTACT_CODES} wrong codes voided this code: POST the send operation for a new one`,
  WRONG: 'is not the code that was sent',
};

function refusalMessage(refusal: ContactCodeRefusal): string {
  return refusal.reason === 'WRONG' ? `${REFUSALS.WRONG}; ${refusal.attemptsLeft} attempt(s) left before it is void` : REFUSALS[refusal.reason];
}

export const contactVerificationRoutes: RouteModule = (app, { contactVerification }) => {
  for (const channel of ['email', 'phone'] as const) {
    const { path, what, field } = NAMES[channel];
    app.post(
      `/customers/:customerId/${path}`,
      {
        config: { permission: 'TRANSACT' },
        schema: {
          tags,
          summary: `Send a ${what} verification code to a customer`,
          description:
            `Starts (or restarts) ${channel} verification: a new code replaces any outstanding one. The sandbox sends nothing; the code is always 123456 and expires after CONTACT_CODE_TTL_MS. ` +
            `Only customers with contactVerification.${channel} (the European Economic Area regions) verify it: otherwise, when verified already, or without ${field} on file, 409 INVALID_STATE_TRANSITION. ` +
            'Unknown or foreign customer: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED; production: 501 (no delivery provider).',
          params: CustomerIdParamSchema,
          response: { 204: { type: 'null', description: 'Verification code sent' }, ...errorResponses(400, 404, 409, 410, 501) },
        },
      },
      async (request, reply) => {
        await contactVerification.send(request.principal.platformId, request.principal.environment, request.params.customerId, channel, requestUnitOfWork(request));
        return reply.code(204).send(null);
      },
    );

    app.post(
      `/customers/:customerId/${path}/confirm`,
      {
        // A counted wrong code must commit with its 400, or a new Idempotency-Key per guess would lift the limit.
        config: { permission: 'TRANSACT', refusalKeepsWrites: true },
        schema: {
          tags,
          summary: `Confirm a customer's ${what} verification code`,
          description:
            `The right code sets contactVerification.${channel} to VERIFIED and answers the customer. No code sent, an expired code, or a wrong one: 400 INVALID_INPUT on code. ` +
            `Wrong codes are counted (with or without Idempotency-Key); after ${MAX_WRONG_CONTACT_CODES} the code is void and only a new send gives another. ` +
            'Not required or verified already: 409 INVALID_STATE_TRANSITION; unknown or foreign customer: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED.',
          params: CustomerIdParamSchema,
          body: ContactVerificationConfirmBody,
          response: { 200: CustomerSchema, ...errorResponses(400, 404, 409, 410, 415) },
        },
      },
      async (request: FastifyRequest<{ Params: { customerId: string }; Body: { code: string } }>) => {
        const outcome = await contactVerification.confirm(request.principal.platformId, request.params.customerId, channel, request.body.code, requestUnitOfWork(request));
        if ('verified' in outcome) return outcome.verified;
        throw new ValidationError([{ field: 'code', message: refusalMessage(outcome.refused) }]);
      },
    );
  }
};
