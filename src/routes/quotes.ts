import { errorResponses } from '../schemas/common.js';
import { CreateQuoteBody, QuoteIdParamSchema, QuoteSchema } from '../schemas/quotes.js';
import type { CreateQuoteInput } from '../domain/quotes/quotes.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import type { RouteModule } from './types.js';

const tags = ['Cross-Currency Transfers'];
// The source and destination unions are documented, not compiled into a serializer: render builds exactly the answer.
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);

export const quoteRoutes: RouteModule = (app, { quotes, quotePayments }) => {
  app.post(
    '/quotes',
    {
      config: { permission: 'TRANSACT', references: (request) => quotes.referenceErrors(request.principal.platformId, request.body ?? {}, requestUnitOfWork(request)) },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Create a transfer quote',
        description:
          "Locks the rate and both amounts for five minutes of the platform's clock. The sending currency is the source account's (or the real-time funding currency), the receiving currency the destination account's " +
          "(or the UMA address's: a sandbox address's one currency, a customer's first it holds an internal account in). Amounts are converted in integer arithmetic, the receiving side rounded down; the platform's " +
          'CROSS_CURRENCY_TRANSACTION fee (fixed plus basis points of the amount converted, rounded up) is within totalSendingAmount. ' +
          'Unknown ids: one 400 naming each field. A currency without a sandbox rate, or one the UMA address does not receive: 400 INVALID_CURRENCY; a malformed UMA address: 400 INVALID_UMA_ADDRESS; ' +
          'a well-formed address with no receiver: 404 UMA_NOT_FOUND; an amount converted outside the limits: 400 AMOUNT_OUT_OF_RANGE; a quote that would pay its own source account: 400. immediatelyExecute: true executes an account-funded quote at once ' +
          '(as POST /quotes/{quoteId}/execute: the quote answered PROCESSING or FAILED, its refusals leave no quote); a real-time funded one is answered PENDING, executed when paid.',
        body: CreateQuoteBody,
        response: { 201: QuoteSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request, reply) => {
      const { platformId, environment } = request.principal;
      const input = request.body as CreateQuoteInput;
      const quote =
        input.immediatelyExecute === true
          ? await quotePayments.createAndExecute(platformId, environment, (uow) => quotes.create(platformId, input, uow), requestUnitOfWork(request))
          : await quotes.create(platformId, input, requestUnitOfWork(request));
      return reply.code(201).send(quote);
    },
  );

  app.post(
    '/quotes/:quoteId/execute',
    {
      config: { permission: 'TRANSACT' },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Execute a quote',
        description:
          "Creates the quote's OutgoingTransaction (id: the quote's transactionId) from its source internal account: the whole totalSendingAmount (fees within it) is held, then debited when the payment completes, " +
          "the platform's fees credited to the platform's own internal account in the sending currency. The quote is PROCESSING, then COMPLETED or FAILED with its payment; OUTGOING_PAYMENT.* webhooks. " +
          'In the sandbox the destination account\'s last three digits decide the outcome: 002 execution fails at once, 003 completes after six minutes of the platform\'s clock, 004 delivery fails, ' +
          '005 completes then is returned, 006 is cancelled by the user, 007 payout and refund fail; any other completes. Held funds of a failure are refunded (not for 007). ' +
          'A quote past expiresAt, or already executed: 409 INVALID_STATE_TRANSITION (currentStatus EXPIRED, or its status). A real-time funded quote is paid through its payment instructions: 400. ' +
          'To a sandbox UMA address: $pending.long.usd completes after six minutes, $fail.compliance.usd fails (COMPLIANCE_REJECTED), the others complete. ' +
          "To an internal account of the platform, or a customer's UMA address (its internal account in the receiving currency): completes at once, and in the same commit the receiving account is credited " +
          'totalReceivingAmount by an IncomingTransaction of the recipient (INCOMING_PAYMENT.COMPLETED). Unknown: 404 QUOTE_NOT_FOUND.',
        params: QuoteIdParamSchema,
        response: { 200: QuoteSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => quotePayments.execute(request.principal.platformId, request.principal.environment, request.params.quoteId, requestUnitOfWork(request)),
  );

  app.get(
    '/quotes/:quoteId',
    {
      config: { permission: 'VIEW' },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Get a quote',
        description: "Its status on the platform's clock: a PENDING quote past expiresAt is EXPIRED. Unknown or another platform's: 404 QUOTE_NOT_FOUND.",
        params: QuoteIdParamSchema,
        response: { 200: QuoteSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => quotes.get(request.principal.platformId, request.params.quoteId),
  );
};
