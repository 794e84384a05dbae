import { SECRET_ROTATION_WINDOW_MS } from '../domain/platform/platform-config.js';
import { permissionRank } from '../domain/platform/tokens.js';
import { errorResponses } from '../schemas/common.js';
import { PlatformConfigSchema, UpdateConfigBody } from '../schemas/platform-config.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

const tags = ['Platform Configuration'];
const windowHours = SECRET_ROTATION_WINDOW_MS / 3_600_000;

export const configRoutes: RouteModule = (app, { platformConfig }) => {
  app.get(
    '/config',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get platform configuration',
        description: 'The configuration of the token\'s environment. webhookSecret is shown only to MANAGE tokens; VIEW and TRANSACT tokens see the rest.',
        response: { 200: PlatformConfigSchema, ...errorResponses() },
      },
    },
    async (request) =>
      permissionRank(request.principal.permission) >= permissionRank('MANAGE')
        ? platformConfig.get(request.principal.platformId)
        : platformConfig.getWithoutSecret(request.principal.platformId),
  );

  app.patch(
    '/config',
    {
      config: { permission: 'MANAGE' },
      schema: {
        tags,
        summary: 'Update platform configuration',
        description:
          'Fields left out are unchanged: supportedCurrencies replaces the list, embeddedWalletConfig and cardTokenization2faConfig change only the fields given, ' +
          'feeConfigs upserts by (feeType, sourceCurrency). The service stores these settings and returns them; it does not act on them, except sandboxAuthorizationTtlSeconds (when open authorizations expire by themselves on the sandbox clock). ' +
          'Events stored while no endpoint is set are not sent when one is set; redeliver them with POST /webhook-events/{id}/redeliver.',
        body: UpdateConfigBody,
        response: { 200: PlatformConfigSchema, ...errorResponses(400, 415, 501) },
      },
    },
    async (request) => platformConfig.update(request.principal.platformId, request.body, requestUnitOfWork(request)),
  );

  app.post(
    '/config/webhook-secret/rotate',
    {
      config: { permission: 'MANAGE' },
      schema: {
        tags,
        summary: 'Rotate the webhook signing secret',
        description: `Issues a new secret. For ${windowHours} hours every delivery carries two signatures in webhook-signature (new and previous secret, space-separated), so a receiver can switch secrets without dropping a webhook. The ECDSA key pair of X-Grid-Signature does not change: webhookPublicKey stays valid.`,
        response: { 200: PlatformConfigSchema, ...errorResponses() },
      },
    },
    async (request) => platformConfig.rotateSecret(request.principal.platformId, requestUnitOfWork(request)),
  );
};
