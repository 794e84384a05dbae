import { expect, it } from 'vitest';
import { createPlatformWithToken } from '../../src/domain/platform/platforms.js';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-events.js';
import { describeWithProcesses } from '../helpers/process-harness.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SERVER_ENV = {
  WEBHOOK_RETRY_SCHEDULE: Array(40).fill('0.25').join(','),
  WEBHOOK_TIMEOUT_MS: '1000',
  JOB_LEASE_MS: '2500',
  JOB_POLL_MS: '20',
};

describeWithProcesses('webhook delivery across a server restart', { env: SERVER_ENV }, (h) => {
  it('keeps retrying while the endpoint is down, survives a crash, and delivers once the endpoint is back', { timeout: 90_000 }, async () => {
    const { services } = h;
    const { platformId } = await createPlatformWithToken(services.store, services.tokens, 'Restart test platform');
    const receiver = h.receiver(await startWebhookReceiver());
    const config = await services.platformConfig.update(platformId, { webhookEndpoint: receiver.url });
    receiver.trust(config);
    await receiver.stop();
    const { id } = await services.store.transaction((uow) =>
      recordWebhookEvent(uow, { platformId, type: 'CARD_TRANSACTION.AUTHORIZED', fields: { data: { id: 'CardTransaction:r' }, operation: { kind: 'authorization', issuerTransactionToken: 'itt_restart', amount: 100 } } }),
    );
    const event = () => services.store.db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    const first = await h.startServer();
    await until('failed attempts while the endpoint is down', async () => ((await event()).attempt_count >= 2 ? true : undefined), 20_000);
    await first.kill('SIGKILL');
    const failedAttempts = (await event()).attempt_count;
    expect((await event()).delivery_state).toBe('PENDING');

    await receiver.start();
    const second = await h.startServer();
    await receiver.waitFor((d) => d.some((x) => x.answeredStatus === 200), 20_000);
    const delivered = await until('DELIVERED', async () => {
      const e = await event();
      return e.delivery_state === 'DELIVERED' ? e : undefined;
    }, 20_000);
    expect(second.child.exitCode).toBeNull();
    await second.kill('SIGTERM');

    expect(receiver.deliveries.every((d) => d.id === id && d.verified)).toBe(true);
    const attempts = await services.store.db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', id).orderBy('id').execute();
    expect(attempts.length).toBe(delivered.attempt_count);
    expect(attempts.length).toBeGreaterThan(failedAttempts);
    expect(attempts.slice(0, failedAttempts).every((a) => a.response_status === null && /^no answer: could not connect/.test(a.error ?? ''))).toBe(true);
    expect(attempts.at(-1)).toMatchObject({ response_status: 200, error: null });
  });
});
