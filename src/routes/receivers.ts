import { errorResponses } from '../schemas/common.js';
import { ReceiverAccountParams, ReceiverExternalAccountLookupSchema, ReceiverLookupQuery, ReceiverUmaLookupSchema, ReceiverUmaParams } from '../schemas/receivers.js';
import type { RouteModule } from './types.js';

const tags = ['Cross-Currency Transfers'];

export const receiverRoutes: RouteModule = (app, { receiverLookups }) => {
  app.get(
    '/receiver/uma/:receiverUmaAddress',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Look up an UMA address for payment',
        description:
          'The sandbox guide\'s addresses ($success.usd, $success.eur, $success.mxn, $pending.long.usd, $fail.compliance.usd @sandbox.uma.money) each receive their one currency; ' +
          "a customer of this platform's address receives its currencies. Any other well-formed address: 404 UMA_NOT_FOUND; a malformed one: 400 INVALID_UMA_ADDRESS; an unknown customerId: 400.",
        params: ReceiverUmaParams,
        querystring: ReceiverLookupQuery,
        response: { 200: ReceiverUmaLookupSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => receiverLookups.lookupUma(request.principal.platformId, request.params.receiverUmaAddress, request.query),
  );

  app.get(
    '/receiver/external-account/:accountId',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Look up an external account for payment',
        description: "The account's currency with the estimated rate and limits. Unknown, deleted or another platform's account: 404 REFERENCE_NOT_FOUND.",
        params: ReceiverAccountParams,
        querystring: ReceiverLookupQuery,
        response: { 200: ReceiverExternalAccountLookupSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => receiverLookups.lookupExternalAccount(request.principal.platformId, request.params.accountId, request.query),
  );
};
