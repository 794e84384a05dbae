import type { FastifyRequest } from 'fastify';
import { REQUESTABLE_CARD_STATES, type CardState } from '../../domain/cards/card-lifecycle.js';
import type { CardTransaction } from '../../domain/cards/cards.js';
import { ValidationError } from '../../domain/shared/errors.js';
import type { Page } from '../../domain/shared/pagination.js';
import { cardRevealPagePath } from '../../schemas/sandbox-pages.js';
import type { Services } from '../../services.js';
import { renderFragment, renderPage, requirePermission, sessionOf } from '../render.js';
import { DESCRIPTOR_PRESETS, runSimulator, SIMULATOR_FORMS } from '../simulators.js';
import type { PageModule } from './index.js';
import { isLiveRefresh, listQuery, PAGE_SIZE } from './list-query.js';

const CARD_STATES: CardState[] = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'];
/** The state buttons of a card page: what each asks PATCH /cards/{id} for. */
const STATE_ACTIONS = [
  { state: 'FROZEN', button: 'Freeze' },
  { state: 'ACTIVE', button: 'Unfreeze' },
  { state: 'CLOSED', button: 'Close' },
] as const;

async function cardTransactions(services: Services, request: FastifyRequest, cardId: string) {
  const { platformId } = sessionOf(request);
  // With a cardId the one transaction list holds card transactions only.
  const page = await services.transactions.list(platformId, PAGE_SIZE, undefined, { cardId, sortOrder: 'desc' });
  return page as Page<CardTransaction>;
}

export const cardPages: PageModule = (scope, { services }) => {
  scope.get('/cards', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { state: CARD_STATES, cardholderId: 'text' });
    const page = await services.cards.list(platformId, PAGE_SIZE, cursor, { ...(filters as { state?: CardState; cardholderId?: string }), sortOrder: 'desc' });
    return renderPage(request, reply, 'cards', { title: 'Cards', page, filters, cursor, states: CARD_STATES });
  });

  scope.get('/cards/:id', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { id } = request.params as { id: string };
    const card = await services.cards.get(platformId, id);
    const transactions = await cardTransactions(services, request, id);
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/card-live', { card, transactions: transactions.data });
    const accounts = await services.internalAccounts.list(platformId, 100, undefined, { customerId: card.cardholderId });
    const funding = card.fundingSources.map((sourceId) => ({ id: sourceId, account: accounts.data.find((a) => a.id === sourceId) }));
    const query = request.query as { accepted?: string; transaction?: string; state?: string; issued?: string };
    return renderPage(request, reply, 'card', {
      title: `Card ${card.id}`,
      card,
      funding,
      transactions: transactions.data,
      simulators: SIMULATOR_FORMS,
      presets: DESCRIPTOR_PRESETS,
      stateActions: STATE_ACTIONS.filter((a) => a.state !== card.state && card.state !== 'CLOSED'),
      accepted: SIMULATOR_FORMS.find((f) => f.name === query.accepted),
      acceptedTransaction: query.transaction,
      changedState: REQUESTABLE_CARD_STATES.find((s) => s === query.state),
      issued: query.issued !== undefined,
    });
  });

  scope.post('/cards/:id/simulate/:name', async (request, reply) => {
    const principal = requirePermission(request, 'TRANSACT');
    const { id, name } = request.params as { id: string; name: string };
    const form = SIMULATOR_FORMS.find((f) => f.name === name);
    if (!form) return reply.callNotFound();
    const transactionId = await runSimulator(services, principal, id, form, (request.body ?? {}) as Record<string, unknown>);
    return reply.redirect(`/console/cards/${encodeURIComponent(id)}?accepted=${form.name}&transaction=${encodeURIComponent(transactionId)}`, 303);
  });

  // The same service as POST /cards/{id}/reveal: the single-use URL is shown once, on this answer, as the API answers it once.
  scope.post('/cards/:id/reveal', async (request, reply) => {
    const { platformId, environment, tokenId } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    const grant = await services.cardReveals.reveal(platformId, environment, tokenId, id);
    const panEmbedUrl = `${request.protocol}://${request.host}${cardRevealPagePath(grant.token)}`;
    return renderPage(request, reply.header('cache-control', 'no-store'), 'card-reveal', { title: `Card ${id} revealed`, cardId: id, panEmbedUrl, expiresAt: grant.expiresAt });
  });

  scope.post('/cards/:id/state', async (request, reply) => {
    const { platformId, environment } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    const state = REQUESTABLE_CARD_STATES.find((s) => s === (request.body as Record<string, unknown> | undefined)?.state);
    if (!state) throw new ValidationError([{ field: 'state', message: `must be one of ${REQUESTABLE_CARD_STATES.join(', ')}` }]);
    await services.cards.update(platformId, environment, id, { state });
    return reply.redirect(`/console/cards/${encodeURIComponent(id)}?state=${state}`, 303);
  });
};
