import { Type, type TSchema } from 'typebox';
import { ERROR_CATALOGUE, type ErrorStatus } from '../http/error-catalogue.js';

export const FieldConstraintSchema = Type.Object(
  {
    format: Type.Optional(Type.String({ description: 'Named format: an HTML5 input type (email, tel, url, date) or a semantic slug (iso3166-1-alpha-2, e.164)' })),
    pattern: Type.Optional(Type.String({ description: 'JavaScript regular expression the value must match' })),
    enum: Type.Optional(Type.Array(Type.String(), { description: 'Allowed values' })),
    minLength: Type.Optional(Type.Integer()),
    maxLength: Type.Optional(Type.Integer()),
  },
  { description: 'Machine-readable validator hint; fields are additive' },
);

export const FieldErrorSchema = Type.Object({
  field: Type.String({ description: 'Dot-notation path to the offending field; array items as name[index]' }),
  constraint: Type.Optional(FieldConstraintSchema),
  message: Type.Optional(Type.String()),
});

const STATUS_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Invalid input',
  401: 'Missing, malformed, unknown or revoked credentials',
  403: 'The token lacks the permission this operation needs',
  404: 'Unknown resource (a resource of another platform looks the same)',
  405: 'Method not allowed on this path',
  409: 'The resource is not in a state that allows this operation, or the write clashes with another resource',
  410: 'The resource has been deleted',
  413: 'Request body larger than 1 MiB',
  415: 'Request body is not application/json',
  429: 'Too many failed authentications, or (with the per-token limit set) too many requests from the token; Retry-After gives the seconds to wait. With the per-token limit set, every authenticated answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset',
  500: 'Internal service error; the message carries a reference that is in the server log',
  501: 'Defined by the interface but not implemented',
};

const errorSchemas = new Map<ErrorStatus, TSchema>();

/** The Error object for one status, with that status's closed list of codes. */
export function errorSchema(status: ErrorStatus): TSchema {
  let schema = errorSchemas.get(status);
  if (!schema) {
    const codes = Object.entries(ERROR_CATALOGUE[status]);
    schema = Type.Object(
      {
        status: Type.Integer({ enum: [status], description: 'Equal to the HTTP status of the response' }),
        code: Type.Enum(
          codes.map(([c]) => c),
          { description: codes.map(([c, d]) => `${c}: ${d}`).join('\n') },
        ),
        message: Type.String({ description: 'Human-readable message' }),
        details:
          status === 400
            ? Type.Optional(
                Type.Object(
                  { errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'One entry per invalid field (INVALID_INPUT)' })) },
                  { additionalProperties: true, description: 'Additional details; shape varies by code' },
                ),
              )
            : Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Additional details; shape varies by code' })),
      },
      { description: STATUS_DESCRIPTIONS[status] },
    );
    errorSchemas.set(status, schema);
  }
  return schema;
}

/** Response schemas for the error statuses an operation returns; 401, 429 (failed-authentication throttle, per-token limit) and 500 are always there. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of [...new Set<ErrorStatus>([...statuses, 401, 429, 500])].sort()) out[s] = errorSchema(s);
  return out;
}

/**
 * Marks what this service adds beyond the Grid document (an operation, a property, enum values):
 * one keyword everywhere, `x-extension`, whose text says what is the extension.
 */
export const extension = (what: string) => ({ 'x-extension': what });

export const SortOrderSchema = Type.Enum(['asc', 'desc'], {
  default: 'desc',
  description: 'By creation time (ties by id): desc, newest first (the default), or asc. A cursor continues the order it was issued for',
});

export const PageQuerySchema = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum results to return; 1 to 100, default 20' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Opaque cursor returned by a previous request as nextCursor' })),
};

/** The list envelope every paginated operation returns. */
export function pageSchema<T extends TSchema>(item: T, description: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      hasMore: Type.Boolean({ description: 'True when more results exist beyond this page' }),
      nextCursor: Type.Optional(Type.String({ description: 'Present only when hasMore is true; pass as cursor for the next page' })),
      totalCount: Type.Integer({ description: 'Total number of results matching the criteria' }),
    },
    { description },
  );
}

export const IdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
