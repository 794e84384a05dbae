import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';

export interface ErrorObject {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The codes the catalogue lists under an HTTP status; empty for a status it does not know. */
export function catalogueCodes(status: number): string[] {
  return Object.keys((ERROR_CATALOGUE as Record<number, Record<string, string>>)[status] ?? {});
}

/**
 * Asserts that a response is the Error object: a JSON body with only its four members, `status`
 * equal to the HTTP status, a `code` the catalogue lists under that status, a message, and no
 * stack trace. Returns the body.
 */
export function expectErrorObject(res: LightMyRequestResponse, label: string): ErrorObject {
  expect(res.statusCode, `${label}: an error status`).toBeGreaterThanOrEqual(400);
  expect(res.headers['content-type'], `${label}: content type`).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as ErrorObject;
  expect(Object.keys(body).filter((k) => !['status', 'code', 'message', 'details'].includes(k)), `${label}: extra members`).toEqual([]);
  expect(body.status, `${label}: status member`).toBe(res.statusCode);
  expect(catalogueCodes(res.statusCode), `${label}: ${body.code} is a code of ${res.statusCode}`).toContain(body.code);
  expect(typeof body.message === 'string' && body.message.length > 0, `${label}: message`).toBe(true);
  if ('details' in body) expect(typeof body.details === 'object' && body.details !== null, `${label}: details`).toBe(true);
  expect(res.body, `${label}: no stack trace`).not.toMatch(/\n\s+at |\bat \S+ \(.*:\d+:\d+\)/);
  return body;
}
