import { Type } from 'typebox';
import { PERMISSIONS } from '../domain/platform/tokens.js';
import { extension, PageQuerySchema } from './common.js';
import { text } from './fields.js';

const PermissionSchema = Type.Enum([...PERMISSIONS], {
  description: 'VIEW: read data; TRANSACT: send payments; MANAGE: manage configuration, tokens and customers',
});

export const ApiTokenSchema = Type.Object({
  id: Type.String({ examples: ['Token:019542f5-b3e7-7d02-8000-000000000001'] }),
  name: Type.String(),
  permissions: Type.Array(PermissionSchema),
  clientId: Type.String({ description: 'Username for HTTP Basic authentication (the token id is accepted too)' }),
  environment: Type.Enum(['sandbox', 'production'], { ...extension('The property environment'), description: 'The environment whose data the token reaches' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const CreatedApiTokenSchema = Type.Object(
  { ...ApiTokenSchema.properties, clientSecret: Type.String({ description: 'Shown only in this response; stored only as a digest' }) },
  { description: 'The new token, with its secret' },
);

export const CreateTokenBody = Type.Object(
  {
    name: text(200),
    permissions: Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);

const instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', description: `${description} (ISO 8601, inclusive)` }));

export const ListTokensQuery = Type.Object(
  {
    ...PageQuerySchema,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only tokens with this name' })),
    createdAfter: instant('Only tokens created at or after this time'),
    createdBefore: instant('Only tokens created at or before this time'),
    updatedAfter: instant('Only tokens updated at or after this time'),
    updatedBefore: instant('Only tokens updated at or before this time'),
  },
  { additionalProperties: false },
);
