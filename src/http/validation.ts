import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import type { FieldConstraint, FieldError } from '../domain/shared/errors.js';
import { isCountryCode } from '../domain/customers/countries.js';
import { NOT_BLANK } from '../schemas/fields.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Formats with a semantic name; each is reported back in FieldConstraint.format under that name. */
const E164 = /^\+[1-9]\d{1,14}$/;

function buildAjv(opts: Options): Ajv {
  // discriminator: a tagged oneOf (accountInfo's accountType) is checked against the one branch its tag names.
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, removeAdditional: false, discriminator: true, ...opts });
  addFormats(ajv);
  ajv.addFormat('iso3166-1-alpha-2', { type: 'string', validate: isCountryCode });
  ajv.addFormat('e.164', { type: 'string', validate: (s: string) => E164.test(s) });
  // A multipart file part: the body the schema checks holds its file name (http/multipart-body.ts).
  ajv.addFormat('binary', true);
  // A calendar date (already checked by format "date") that lies before today, UTC.
  ajv.addKeyword({
    keyword: 'x-past',
    type: 'string',
    schemaType: 'boolean',
    error: { message: 'must be a date in the past' },
    validate: (past: boolean, value: string) => !past || !/^\d{4}-\d{2}-\d{2}$/.test(value) || value < new Date().toISOString().slice(0, 10),
  });
  // A calendar date on or after the given one (YYYY-MM-DD strings compare as dates).
  ajv.addKeyword({
    keyword: 'x-not-before',
    type: 'string',
    schemaType: 'string',
    error: { message: 'is too early' },
    validate: (earliest: string, value: string) => !/^\d{4}-\d{2}-\d{2}$/.test(value) || value >= earliest,
  });
  return ajv;
}

// Bodies are JSON and typed: "50" is not 50. Query strings and paths are text and need coercion.
const bodyAjv = buildAjv({ coerceTypes: false, useDefaults: true });
const textAjv = buildAjv({ coerceTypes: true, useDefaults: true });

/**
 * Each route's validator is compiled on its first request, not when the route is registered:
 * compiling every route's schemas was 1.2 s of the server's 3.3 s start (a CPU profile of a first
 * start), paid again by every process the tests start, for routes most never call. A compiled
 * schema is kept by Ajv per schema object, so the second app of a process compiles nothing.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  let validate: ValidateFunction | undefined;
  return (data: unknown) => {
    validate ??= (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
    const valid = validate(data);
    const control = controlCharacterErrors(data, '');
    if (valid && control.length === 0) return { value: data };
    return { error: Object.assign(new Error('validation'), { validation: [...(validate.errors ?? []), ...control] }) };
  };
};

// No field has a use for control characters, and PostgreSQL refuses NUL in text: a 400 here, never a 500 there.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** One validator error per string value (at any depth) that holds a control character. */
function controlCharacterErrors(value: unknown, instancePath: string): ErrorObject[] {
  if (typeof value === 'string') {
    return CONTROL_CHARACTER.test(value) ? [{ keyword: 'x-no-control', instancePath, schemaPath: '#', params: {}, message: 'must not contain control characters' }] : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => controlCharacterErrors(v, `${instancePath}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

const FORMAT_NAMES: Record<string, string> = {
  'iso3166-1-alpha-2': 'an ISO 3166-1 alpha-2 country code',
  'e.164': 'an E.164 phone number such as +14155550123',
  email: 'an email address',
  date: 'a calendar date, YYYY-MM-DD',
  'date-time': 'an RFC 3339 date-time',
  uri: 'an absolute URL',
  url: 'an absolute URL',
};

/** Constraint format slugs as the interface names them (HTML5 input types or semantic slugs). */
const FORMAT_SLUGS: Record<string, string> = { uri: 'url' };

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

interface Collected {
  constraint: FieldConstraint;
  messages: string[];
}

/** Turns the validator's errors into one FieldError per invalid field, each with its constraint. */
export function fieldErrorsFromAjv(errors: ErrorObject[], part: string): FieldError[] {
  const byField = new Map<string, Collected>();
  const at = (field: string): Collected => {
    let c = byField.get(field);
    if (!c) byField.set(field, (c = { constraint: {}, messages: [] }));
    return c;
  };
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const e of errors) {
    const params = e.params as Record<string, unknown>;
    const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        at(fieldPath(e.instancePath, String(params.missingProperty))).messages.push('is required');
        break;
      case 'additionalProperties':
        at(fieldPath(e.instancePath, String(params.additionalProperty))).messages.push('is not a recognised field');
        break;
      case 'anyOf': {
        const c = at(fieldPath(e.instancePath));
        const branches = (parent.anyOf as Record<string, unknown>[] | undefined) ?? [];
        if (branches.length > 0 && branches.every((b) => 'const' in b)) {
          c.constraint.enum = branches.map((b) => String(b.const));
          c.messages.push(`must be one of ${c.constraint.enum.join(', ')}`);
        } else c.messages.push('does not match any allowed shape');
        break;
      }
      case 'discriminator': {
        const tag = String(params.tag);
        const c = at(fieldPath(e.instancePath, tag));
        const branches = (parent.oneOf as { properties?: Record<string, { const?: unknown }> }[] | undefined) ?? [];
        c.constraint.enum = branches.map((b) => String(b.properties?.[tag]?.const));
        c.messages.push(params.tagValue === undefined ? 'is required' : `must be one of ${c.constraint.enum.join(', ')}`);
        break;
      }
      default: {
        // Errors inside a union branch are summarised by the anyOf entry at the same path.
        if (anyOfPaths.has(e.instancePath) && e.schemaPath.includes('/anyOf/')) break;
        // An empty string is reported by minLength alone; blankness is about whitespace.
        if (e.keyword === 'pattern' && params.pattern === NOT_BLANK && e.data === '') break;
        const c = at(fieldPath(e.instancePath));
        c.messages.push(describe(e, params, c.constraint, parent));
      }
    }
  }
  return [...byField.entries()].map(([field, c]) => {
    const out: FieldError = { field: field || (part === 'body' ? 'body' : part), message: [...new Set(c.messages)].join('; ') };
    if (Object.keys(c.constraint).length > 0) out.constraint = c.constraint;
    return out;
  });
}

function describe(e: ErrorObject, params: Record<string, unknown>, constraint: FieldConstraint, parent: Record<string, unknown>): string {
  switch (e.keyword) {
    case 'enum':
      constraint.enum = (params.allowedValues as unknown[]).map(String);
      return `must be one of ${constraint.enum.join(', ')}`;
    case 'format': {
      const format = String(params.format);
      constraint.format = FORMAT_SLUGS[format] ?? format;
      return `must be ${FORMAT_NAMES[format] ?? `a valid ${format}`}`;
    }
    case 'pattern':
      constraint.pattern = String(params.pattern);
      if (params.pattern === NOT_BLANK) return 'must not be blank';
      if (typeof parent.format === 'string') constraint.format = FORMAT_SLUGS[parent.format] ?? parent.format;
      return `must match ${String(params.pattern)}`;
    case 'minLength':
      constraint.minLength = Number(params.limit);
      return Number(params.limit) === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      constraint.maxLength = Number(params.limit);
      return `must be at most ${String(params.limit)} characters`;
    case 'type':
      return `must be ${params.type === 'integer' ? 'an integer' : params.type === 'object' ? 'an object' : params.type === 'array' ? 'an array' : `a ${String(params.type)}`}`;
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'minItems':
      return Number(params.limit) === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'x-past':
      constraint.format = 'date';
      return 'must be a date in the past';
    case 'x-not-before':
      constraint.format = 'date';
      return `must be ${String(parent['x-not-before'])} or later`;
    default:
      return e.message ?? 'is invalid';
  }
}

/** A body schema's check outside a request (the rows of a bulk import): every failure, one per field, as a request's 400 lists them. */
export function bodyCheck(schema: TSchema): (value: unknown) => FieldError[] {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' }) as (data: unknown) => { error?: { validation: ErrorObject[] } };
  return (value) => {
    const result = validate(value);
    return result.error ? fieldErrorsFromAjv(result.error.validation, 'body') : [];
  };
}
