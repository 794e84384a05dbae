import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../index.js';
import { cardPages } from './cards.js';
import { customerPages, documentUploadPage } from './customers.js';
import { requestPages } from './requests.js';
import { settingsPages } from './settings.js';
import { transactionPages } from './transactions.js';
import { webhookPages } from './webhooks.js';

/** A console page (or a group of pages), registered behind the session check; its nav entry is in nav.ts. */
export type PageModule = (scope: FastifyInstance, ctx: ConsoleContext) => void;

export const pageModules: PageModule[] = [customerPages, documentUploadPage, cardPages, transactionPages, webhookPages, requestPages, settingsPages];
