import { Type } from 'typebox';
import { CurrencySchema } from './cards.js';

const code = (description: string) => Type.String({ pattern: '^[A-Z0-9]{3,5}$', description });
const RATE = '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,12})?$';

export const ExchangeRateSchema = Type.Object(
  {
    sourceCurrency: CurrencySchema,
    sendingAmount: Type.Integer({ minimum: 0, description: 'Minor units of the source currency: the query\'s sendingAmount, 10000 by default' }),
    minSendingAmount: Type.Integer({ minimum: 0, description: "Smallest amount converted: the platform's supportedCurrencies minAmount for the source currency, else one US dollar's worth" }),
    maxSendingAmount: Type.Integer({ minimum: 0, description: "Largest amount converted: the platform's supportedCurrencies maxAmount, else 100,000 US dollars' worth" }),
    destinationCurrency: CurrencySchema,
    destinationPaymentRail: Type.String({ description: 'The rail the sandbox pays this currency over' }),
    receivingAmount: Type.Integer({ minimum: 0, description: 'What sendingAmount delivers after fees, rounded down to a whole minor unit' }),
    exchangeRate: Type.Number({ exclusiveMinimum: 0, description: 'Sending units per receiving unit (computed exactly; shown to 10 decimals)' }),
    fees: Type.Object({
      fixed: Type.Integer({ minimum: 0, description: "The platform's fixed CROSS_CURRENCY_TRANSACTION fee, minor units of the source currency" }),
      total: Type.Integer({ minimum: 0, description: 'Every fee on sendingAmount, fixed and variable' }),
    }),
    updatedAt: Type.String({ format: 'date-time', description: "When the platform set this corridor's rate; for the sandbox table, now on the platform's clock" }),
  },
  { description: 'One corridor: a source currency to a destination currency' },
);

export const ExchangeRateListSchema = Type.Object({ data: Type.Array(ExchangeRateSchema) }, { description: 'Exchange rates' });

export const ExchangeRatesQuery = Type.Object(
  {
    sourceCurrency: Type.Optional(code('Only corridors from this currency')),
    destinationCurrency: Type.Optional(
      Type.Union([code('A destination currency'), Type.Array(code('A destination currency'), { maxItems: 50 })], { description: 'Only corridors to these fiat currencies; repeat the parameter for several' }),
    ),
    sendingAmount: Type.Optional(Type.Integer({ minimum: 0, maximum: 9_000_000_000_000_000, default: 10000, description: 'Minor units of the source currency to price' })),
  },
  { additionalProperties: false },
);

export const CorridorParams = Type.Object(
  { sourceCurrency: code('The sending currency'), destinationCurrency: code('The receiving currency') },
  { additionalProperties: false },
);

export const SetExchangeRateBody = Type.Object(
  {
    exchangeRate: Type.String({
      pattern: RATE,
      maxLength: 25,
      description: 'Sending units per receiving unit, as the interface\'s exchangeRate, an exact decimal string greater than 0 (e.g. "0.0579"); used as given, no spread added',
    }),
  },
  { additionalProperties: false },
);

export const SetExchangeRateSchema = Type.Object(
  {
    sourceCurrency: CurrencySchema,
    destinationCurrency: CurrencySchema,
    exchangeRate: Type.Number({ exclusiveMinimum: 0, description: 'Sending units per receiving unit' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: "A corridor's rate as the platform set it" },
);
