import { Type } from 'typebox';
import { KYC_STATUSES } from '../domain/customers/beneficial-owners.js';

export const CustomerIdParamSchema = Type.Object({ customerId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const SetKycStatusBody = Type.Object(
  {
    status: Type.Enum([...KYC_STATUSES], {
      description: "The customer's new KYC status (kybStatus for a BUSINESS customer)",
    }),
  },
  { additionalProperties: false },
);
