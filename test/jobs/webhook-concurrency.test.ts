import { afterAll, beforeAll, expect, it } from 'vitest';
import { DELIVER_WEBHOOK_JOB } from '../../src/domain/webhooks/webhook-events.js';
import { deliverySlots, webhookDeliveryHandler } from '../../src/jobs/deliver-webhook-job.js';
import type { JobHandler } from '../../src/jobs/types.js';
import { Worker } from '../../src/jobs/worker.js';
import { HoldingReceiver } from '../helpers/holding-receiver.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { produceEvent } from '../helpers/webhook-receiver.js';

const CONCURRENCY = 3;
const EVENTS = 8;

describeEachEngine(
  'WEBHOOK_CONCURRENCY',
  (t) => {
    let receiver: HoldingReceiver;
    let worker: Worker;
    /** Times the worker asked the delivery handler for its bound, once per claim it considers. */
    let boundAsked = 0;
    beforeAll(async () => {
      receiver = await new HoldingReceiver().start();
      const counted: JobHandler = {
        ...webhookDeliveryHandler,
        concurrency: (services) => {
          boundAsked++;
          return webhookDeliveryHandler.concurrency!(services);
        },
      };
      worker = new Worker(t.services, [counted], t.app.log).start();
    });
    afterAll(async () => {
      receiver.release();
      await worker.stop();
      await receiver.stop();
    });

    it(`bounds a process's deliveries in flight by WEBHOOK_CONCURRENCY (${CONCURRENCY}), below the usual minimum of 8`, async () => {
      expect(deliverySlots(t.services)).toBe(CONCURRENCY);
      const config = await t.caller.req('PATCH', '/config', { webhookEndpoint: receiver.url });
      expect(config.statusCode, config.body).toBe(200);
      receiver.trust(config.json());
      const ids: string[] = [];
      for (let i = 0; i < EVENTS; i++) ids.push(await produceEvent(t, t.caller));
      const leased = async () =>
        Number(
          (await t.services.store.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', DELIVER_WEBHOOK_JOB).where('state', '=', 'queued').where('lease_owner', 'is not', null).executeTakeFirstOrThrow()).n,
        );
      let mostInFlight = 0;
      while (receiver.ids().size < EVENTS) {
        const remaining = EVENTS - receiver.ids().size;
        await receiver.waitFor(`${Math.min(CONCURRENCY, remaining)} deliveries held`, () => receiver.inFlight >= Math.min(CONCURRENCY, remaining));
        // The worker has considered claiming twice more with these in flight: what it would claim beyond the bound, it has claimed.
        const asked = boundAsked;
        await until('two more claims considered', async () => (boundAsked >= asked + 2 ? true : undefined), 10_000, 5);
        expect(receiver.inFlight).toBeLessThanOrEqual(CONCURRENCY);
        expect(await leased()).toBeLessThanOrEqual(CONCURRENCY);
        mostInFlight = Math.max(mostInFlight, receiver.inFlight);
        receiver.release('CARD_TRANSACTION.AUTHORIZED');
      }
      expect(mostInFlight).toBe(CONCURRENCY);
      expect([...receiver.ids()].sort()).toEqual([...ids].sort());
      await until('every event DELIVERED', async () => {
        const states = await Promise.all(ids.map(async (id) => (await t.caller.req('GET', `/webhook-events/${id}`)).json().deliveryState as string));
        return states.every((s) => s === 'DELIVERED') ? true : undefined;
      });
    });
  },
  // The worker considers a claim every 20 ms whatever the engine (on PostgreSQL an idle one waits for JOB_SAFETY_POLL_MS).
  { WEBHOOK_CONCURRENCY: String(CONCURRENCY), JOB_POLL_MS: '20', JOB_SAFETY_POLL_MS: '20' },
);
