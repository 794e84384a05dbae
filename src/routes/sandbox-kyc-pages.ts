import fastifyFormbody from '@fastify/formbody';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { KycLinkPage } from '../domain/customers/kyc-links.js';
import { ApiError } from '../http/api-error.js';
import { KYC_PAGE_LOGGED, KYC_PAGE_ROUTE, KycPageParams } from '../schemas/kyc-links.js';
import type { Services } from '../services.js';
import type { ApiInstance } from './types.js';

const answer = Type.Optional(Type.String({ maxLength: 200 }));
const KycPageForm = Type.Object({ outcome: Type.String({ minLength: 1, maxLength: 20 }), fullName: answer, beneficialOwnerName: answer, formationDocument: answer }, { additionalProperties: false });

const HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};
const gone = () => new ApiError('REFERENCE_NOT_FOUND', 'This KYC link is unknown, already used or expired: ask POST /customers/{customerId}/kyc-link for a new one');

/**
 * The hosted KYC page of POST /customers/{id}/kyc-link: a plain HTML form (no script) whose
 * single-use signed URL is the credential, so a cross-site post cannot forge it. Its own scope
 * parses form bodies; the API still takes JSON only.
 */
export function sandboxKycPageRoutes(app: ApiInstance, { kycLinks }: Services): void {
  app.register(async (scope) => {
    await scope.register(fastifyFormbody);
    const routeOptions = {
      config: { public: true },
      // The token in the path is a bearer secret: the request log shows the route, not the token.
      logSerializers: { req: (req: FastifyRequest) => ({ method: req.method, url: KYC_PAGE_LOGGED }) },
    };
    scope.get(KYC_PAGE_ROUTE, { ...routeOptions, exposeHeadRoute: false, schema: { hide: true, params: KycPageParams } }, async (request, reply) => {
      const page = await kycLinks.page((request.params as { token: string }).token);
      if (!page) throw gone();
      return reply.headers(HEADERS).type('text/html; charset=utf-8').send(kycPage(page));
    });
    scope.post(KYC_PAGE_ROUTE, { ...routeOptions, schema: { hide: true, params: KycPageParams, body: KycPageForm } }, async (request, reply) => {
      const form = request.body as Record<string, string>;
      const done = await kycLinks.finish((request.params as { token: string }).token, form.outcome, form);
      if (!done) throw gone();
      if (done.redirectUri) return reply.headers(HEADERS).code(303).header('location', done.redirectUri).send();
      return reply.headers(HEADERS).type('text/html; charset=utf-8').send(finishedPage(done.customerId, done.status));
    });
  });
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const STYLE = '<style>body{font-family:system-ui,sans-serif;margin:1rem;max-width:40rem}label{display:block;margin:.6rem 0}input{width:100%}button{margin:.3rem .3rem 0 0}</style>';

function kycPage(page: KycLinkPage): string {
  const what = page.customerType === 'BUSINESS' ? 'business verification (KYB)' : 'identity verification (KYC)';
  const body =
    page.outcomes.length === 0
      ? `<p id="decided">This customer is ${escape(page.status)} already: there is nothing left to verify.</p>`
      : `<form method="post">
${page.asks.map((a) => `<label>${escape(a.label)} <input name="${a.name}" required maxlength="200"></label>`).join('\n')}
${page.outcomes.map((o) => `<button type="submit" name="outcome" value="${o.status}">${escape(o.label)}</button>`).join('\n')}
</form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox ${what}</title>${STYLE}</head>
<body><h1>Sandbox ${what}</h1><p>Customer ${escape(page.customerId)}, status ${escape(page.status)}. Nothing real is checked: choose the outcome.</p>
${body}
</body></html>
`;
}

function finishedPage(customerId: string, status: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Verification finished</title>${STYLE}</head>
<body><p id="finished">Customer ${escape(customerId)}: ${escape(status)}. You can close this page.</p></body></html>
`;
}
