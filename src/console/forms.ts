import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { ValidationError, type FieldError } from '../domain/shared/errors.js';
import { toApiError } from '../http/error-handler.js';
import { bodyCheck } from '../http/validation.js';

/** An option of a select or a checkbox group: its value, and what a person reads. */
export interface FieldOption {
  value: string;
  label: string;
}

/** One input of a console form. Its name is the API body's path (dots for nesting), so an error names it as the API does. */
export interface FormField {
  name: string;
  label: string;
  kind?: 'text' | 'date' | 'email' | 'tel' | 'integer' | 'select' | 'checkboxes' | 'file';
  options?: readonly (string | FieldOption)[];
  required?: boolean;
  hint?: string;
  /** What the input holds when the form is first shown. */
  value?: string;
  /** The API takes a list: the one value chosen is sent as a one-element array. */
  list?: boolean;
}

/** A form that creates something through a domain service, checked by the API operation's own schema first. */
export interface FormSpec {
  id: string;
  title: string;
  button: string;
  action: string;
  hint?: string;
  fields: FormField[];
  /** Sent as multipart/form-data (a form with a file). */
  multipart?: boolean;
}

/** What a refused form shows on its page: the values sent back in their inputs, and the errors beside the fields they name. */
export interface FormState {
  formId: string;
  values: Record<string, string | string[]>;
  status: number;
  code: string;
  message: string;
  errors: FieldError[];
}

/** A form's fields as typed, and the API body they make (empty inputs left out, as a client would). */
export function readForm(spec: FormSpec, raw: unknown): { values: Record<string, string | string[]>; body: Record<string, unknown> } {
  const sent = (raw ?? {}) as Record<string, unknown>;
  const values: Record<string, string | string[]> = {};
  const body: Record<string, unknown> = {};
  for (const field of spec.fields) {
    const given = sent[field.name];
    // A file is read by its handler, never echoed back.
    if (field.kind === 'file') continue;
    if (field.kind === 'checkboxes') {
      const chosen = (Array.isArray(given) ? given : [given]).filter((v): v is string => typeof v === 'string' && v !== '');
      values[field.name] = chosen;
      if (chosen.length > 0) setPath(body, field.name, chosen);
      continue;
    }
    const text = typeof given === 'string' ? given.trim() : '';
    values[field.name] = text;
    if (text === '') continue;
    // Whole numbers only: anything else goes on as text for the schema to refuse by name (no binary floating point on money).
    const value = field.kind === 'integer' && /^-?\d{1,15}$/.test(text) ? Number(text) : text;
    setPath(body, field.name, field.list ? [value] : value);
  }
  return { values, body };
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

/** The API operation's schema check, with any cross-field rules: every invalid field at once, as the API answers 400. */
export function bodyChecker(schema: TSchema, rules: (body: Record<string, unknown>) => FieldError[] = () => []) {
  const check = bodyCheck(schema);
  return (body: Record<string, unknown>): void => {
    const errors = check(body);
    const seen = new Set(errors.map((e) => e.field));
    for (const e of rules(body)) if (!seen.has(e.field)) errors.push(e);
    if (errors.length > 0) throw new ValidationError(errors);
  };
}

/** A client's mistake as the state its form shows; anything the server got wrong is thrown on to the error page. */
export function formFailure(err: unknown, request: FastifyRequest, formId: string, values: Record<string, string | string[]>): FormState {
  const error = toApiError(err, request);
  if (error.status >= 500) throw err;
  const errors = (error.details?.errors ?? []) as FieldError[];
  return { formId, values, status: error.status, code: error.code, message: error.message, errors };
}

/** Whether an error names this input (or a part of it: `fundingSources[0]`, `address.line1` under `address`). */
export const errorNames = (field: string, name: string) => field === name || field.startsWith(`${name}[`) || field.startsWith(`${name}.`);
