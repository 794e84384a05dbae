import { errorResponses, extension } from '../schemas/common.js';
import { CorridorParams, ExchangeRateListSchema, ExchangeRatesQuery, SetExchangeRateBody, SetExchangeRateSchema } from '../schemas/exchange-rates.js';
import type { RouteModule } from './types.js';

const tags = ['Exchange Rates'];

export const exchangeRateRoutes: RouteModule = (app, { exchangeRates }) => {
  app.get(
    '/exchange-rates',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get exchange rates',
        description:
          'Every corridor from each source currency with a sandbox rate (or sourceCurrency alone) to each fiat destination (or those of destinationCurrency), priced for sendingAmount ' +
          "after the platform's CROSS_CURRENCY_TRANSACTION fee. Rates are the sandbox's fixed table less a 50 bps spread, unless the platform set the corridor's rate " +
          '(PUT /sandbox/exchange-rates/{sourceCurrency}/{destinationCurrency}). A currency without a sandbox rate: 400 naming the parameter.',
        querystring: ExchangeRatesQuery,
        response: { 200: ExchangeRateListSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const q = request.query;
      const destinations = q.destinationCurrency === undefined ? undefined : Array.isArray(q.destinationCurrency) ? q.destinationCurrency : [q.destinationCurrency];
      return exchangeRates.list(request.principal.platformId, { sourceCurrency: q.sourceCurrency, destinationCurrency: destinations, sendingAmount: q.sendingAmount });
    },
  );
};

export const sandboxExchangeRateRoutes: RouteModule = (app, { exchangeRates }) => {
  app.put(
    '/sandbox/exchange-rates/:sourceCurrency/:destinationCurrency',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        summary: "Set a corridor's exchange rate for this platform",
        description:
          'From now on GET /exchange-rates, receiver lookups and new quotes of this platform use exactly this rate for the corridor (no spread added); other platforms keep the table. ' +
          'Setting it again replaces it. A currency without a sandbox rate: 400 INVALID_CURRENCY. Production: 404, as for an unknown path.',
        ...extension('The operation: a sandbox rate per platform and corridor'),
        params: CorridorParams,
        body: SetExchangeRateBody,
        response: { 200: SetExchangeRateSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => exchangeRates.setSandboxRate(request.principal.platformId, request.params.sourceCurrency, request.params.destinationCurrency, request.body.exchangeRate),
  );
};
