import type { MigrationFactory } from '../migrator.js';
import { m001Foundation } from './001-foundation.js';

/** Forward-only and numbered: a new migration gets the next number and is never edited after release. */
export const migrations: Record<string, MigrationFactory> = {
  '001_foundation': m001Foundation,
};
