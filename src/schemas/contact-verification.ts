import { Type } from 'typebox';

export const ContactVerificationConfirmBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 32, description: 'The one-time code sent to the customer; in the sandbox always 123456' }) },
  { additionalProperties: false },
);
