import { Type } from 'typebox';
import { INVITATION_STATUSES } from '../domain/uma/invitations.js';
import { CurrencySchema } from './cards.js';
import { text } from './fields.js';

const uma = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

export const UmaInvitationSchema = Type.Object(
  {
    code: Type.String({ description: 'The invitation code' }),
    createdAt: Type.String({ format: 'date-time' }),
    claimedAt: Type.Optional(Type.String({ format: 'date-time' })),
    url: Type.String({ description: 'Where the invitation is claimed (sandbox: a reserved domain, no page)' }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    inviterUma: Type.String(),
    inviteeUma: Type.Optional(Type.String()),
    status: Type.Enum([...INVITATION_STATUSES], { description: "A PENDING invitation past expiresAt (platform clock) reads EXPIRED" }),
    firstName: Type.Optional(Type.String()),
    amountToSend: Type.Optional(Type.Object({ amount: Type.Integer(), currency: CurrencySchema })),
  },
  { description: 'An UMA invitation' },
);

export const CreateInvitationBody = Type.Object(
  {
    inviterUma: uma("The UMA address of a customer of this platform"),
    firstName: Type.Optional(text(100, 'Shown with the invitation')),
    amountToSend: Type.Optional(Type.Integer({ exclusiveMinimum: 0, maximum: 9_000_000_000_000_000, description: "Minor units of the inviter's currency (its first, else USD); display only" })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: "Later than now on the platform's clock" })),
  },
  { additionalProperties: false },
);

export const ClaimInvitationBody = Type.Object({ inviteeUma: uma('The UMA address claiming the invitation; not the inviter\'s') }, { additionalProperties: false });

export const InvitationCodeParams = Type.Object({ invitationCode: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
