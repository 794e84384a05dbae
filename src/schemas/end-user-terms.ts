import { Type } from 'typebox';

export const EndUserTermsSchema = Type.Object(
  {
    version: Type.String({ description: 'Current version identifier of the End User Terms (the value a customer accepts as termsVersion)' }),
    url: Type.String({ format: 'uri', description: 'Where this version of the End User Terms is hosted' }),
  },
  { additionalProperties: false },
);
