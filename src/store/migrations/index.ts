import type { MigrationFactory } from '../migrator.js';
import { m001Foundation } from './001-foundation.js';
import { m002Customers } from './002-customers.js';

/** Forward-only and numbered: a new migration gets the next number and is never edited after release. */
export const migrations: Record<string, MigrationFactory> = {
  '001_foundation': m001Foundation,
  '002_customers': m002Customers,
};
