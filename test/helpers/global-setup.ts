import type { TestProject } from 'vitest/node';
import { postgresAvailable } from './engines.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAvailable: boolean;
  }
}

/** Checks PostgreSQL once for the whole run; in CI a missing server fails the run here. */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('pgAvailable', await postgresAvailable());
}
