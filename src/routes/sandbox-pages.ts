import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { CARD_REVEAL_PAGE_LOGGED, CARD_REVEAL_PAGE_ROUTE, RevealTokenParams } from '../schemas/sandbox-pages.js';
import type { RevealedCard } from '../domain/cards/card-reveals.js';
import type { ApiInstance } from './types.js';
import type { Services } from '../services.js';

/**
 * The sandbox's pages, outside the versioned API and without Basic auth: the card reveal page,
 * whose single-use signed URL POST /cards/{id}/reveal answers, and the hosted KYC page
 * (sandbox-kyc-pages.ts). Registered on sandbox servers only.
 */
export function sandboxPageRoutes(app: ApiInstance, { cardReveals }: Services): void {
  app.get(
    CARD_REVEAL_PAGE_ROUTE,
    {
      config: { public: true },
      // A HEAD (a link preview, a prefetch) must not use the single-use URL up.
      exposeHeadRoute: false,
      schema: { hide: true, params: RevealTokenParams },
      // The token in the path is a bearer secret: the request log shows the route, not the token.
      logSerializers: { req: (req: FastifyRequest) => ({ method: req.method, url: CARD_REVEAL_PAGE_LOGGED }) },
    },
    async (request, reply) => {
      const card = await cardReveals.open(request.params.token);
      if (!card) throw new ApiError('REFERENCE_NOT_FOUND', 'This reveal URL is unknown, already used or expired: ask POST /cards/{id}/reveal for a new one');
      return reply
        .headers({
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        })
        .type('text/html; charset=utf-8')
        .send(revealPage(card));
    },
  );
}

// Every value is digits or a Card id (letters, digits, ':' and '-'): nothing to escape.
function revealPage(card: RevealedCard): string {
  const pan = card.pan.replace(/(\d{4})(?=\d)/g, '$1 ');
  const expiry = `${String(card.expMonth).padStart(2, '0')}/${String(card.expYear).slice(-2)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox card</title>
<style>body{font-family:system-ui,sans-serif;margin:1rem}dt{color:#555}dd{font-family:monospace;font-size:1.2rem;margin:0 0 .6rem}</style></head>
<body><p>Sandbox card ${card.cardId}: not a real card number.</p>
<dl><dt>Card number</dt><dd id="pan">${pan}</dd><dt>CVV</dt><dd id="cvv">${card.cvv}</dd><dt>Expiry</dt><dd id="expiry">${expiry}</dd></dl>
</body></html>
`;
}
