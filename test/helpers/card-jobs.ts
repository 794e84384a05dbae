import type { FastifyBaseLogger } from 'fastify';
import { CARD_SIMULATION_JOB } from '../../src/domain/card-simulations.js';
import type { Services } from '../../src/domain/services.js';
import { cardSimulationHandler } from '../../src/jobs/card-simulation.js';
import { Worker } from '../../src/jobs/worker.js';
import type { Executor } from '../../src/store/store.js';

export async function queuedCardJobs(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', CARD_SIMULATION_JOB)
    .where('state', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Runs a worker with only the card simulation handler until no card simulation job is queued. */
export async function drainCardJobs(services: Services, log: FastifyBaseLogger, timeoutMs = 20_000): Promise<void> {
  const worker = new Worker(services, [cardSimulationHandler], log).start();
  const deadline = Date.now() + timeoutMs;
  try {
    while ((await queuedCardJobs(services.store.db)) > 0) {
      if (Date.now() > deadline) throw new Error('card simulation jobs did not drain');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await worker.stop();
  }
}
