import { Type } from 'typebox';

/** The sandbox's pages live outside the versioned API: the URL is their only credential. */
const CARD_REVEAL_PAGE = '/sandbox-pages/cards/reveal';

export const cardRevealPagePath = (token: string) => `${CARD_REVEAL_PAGE}/${encodeURIComponent(token)}`;
export const CARD_REVEAL_PAGE_ROUTE = `${CARD_REVEAL_PAGE}/:token`;
/** The path as logged: the token is a bearer secret until used. */
export const CARD_REVEAL_PAGE_LOGGED = `${CARD_REVEAL_PAGE}/<token>`;

export const RevealTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
