import { Type } from 'typebox';
import { DOCUMENT_TYPES } from '../domain/verifications/document-types.js';
import { VERIFICATION_ERROR_TYPES } from '../domain/verifications/requirements.js';
import { VERIFICATION_STATUSES } from '../domain/verifications/verifications.js';
import { PageQuerySchema } from './common.js';


export const VerificationStatusSchema = Type.Enum([...VERIFICATION_STATUSES], { description: 'Where the KYC/KYB verification stands' });

export const VerificationErrorSchema = Type.Object(
  {
    resourceId: Type.String({ description: 'The Customer or BeneficialOwner the problem is about' }),
    type: Type.Enum([...VERIFICATION_ERROR_TYPES]),
    field: Type.Optional(Type.String({ description: 'Dot path of the field; for MISSING_FIELD and INVALID_FIELD', examples: ['customer.address.line1'] })),
    acceptedDocumentTypes: Type.Optional(Type.Array(Type.Enum([...DOCUMENT_TYPES]), { description: 'Any one of these satisfies a missing document' })),
    reason: Type.String({ description: 'What is wrong, for a person' }),
  },
  { description: 'One thing that keeps the verification from going on' },
);

export const VerificationSchema = Type.Object(
  {
    id: Type.String({ examples: ['Verification:019542f5-b3e7-7d02-8000-000000000001'] }),
    customerId: Type.String({ description: 'The customer submitted' }),
    verificationStatus: VerificationStatusSchema,
    errors: Type.Array(VerificationErrorSchema, { description: 'Every missing field and document, one entry each; empty unless RESOLVE_ERRORS' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A submission of a customer for KYC (individual) or KYB (business) verification' },
);

export const CreateVerificationBody = Type.Object({ customerId: Type.String({ minLength: 1, maxLength: 128, description: 'The customer to verify' }) }, { additionalProperties: false });

export const ListVerificationsQuery = Type.Object(
  {
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only this customer\'s verifications' })),
    verificationStatus: Type.Optional(VerificationStatusSchema),
    ...PageQuerySchema,
  },
  { additionalProperties: false },
);

export const VerificationIdParamSchema = Type.Object({ verificationId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
