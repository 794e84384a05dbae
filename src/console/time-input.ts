import { instant } from '../domain/shared/pagination.js';

/** A datetime-local value has no zone: the console shows and reads times in UTC, so it is read as UTC. */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A time typed in a console form as an ISO instant (checked as the API checks it), or undefined when left empty. */
export function formInstant(field: string, value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') return undefined;
  const iso = LOCAL.test(text) ? `${text}Z` : text;
  return new Date(instant(field, iso)!).toISOString();
}
