import * as repo from '../../store/customers-repo.js';
import type { Store } from '../../store/store.js';
import type { CustomerRow, CustomerType } from '../../store/tables/customers.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookConfig } from '../../store/webhooks-repo.js';
import type { Address } from './beneficial-owners.js';
import { INDIVIDUAL_ONLY_FIELDS } from './customer-fields.js';
import { ConflictError, DeletedError, type DomainError, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { accountCurrencies, newAccountRows, openAccounts, supportedCurrencyCodes } from '../accounts/account-currencies.js';
import { insertAccountsIfAbsent } from '../../store/accounts-repo.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events.js';
import { kycStatusAtCreation, kycWebhookType, recordKycWebhook } from './kyc.js';
import { contactVerificationAtCreation, contactVerificationAfterChange } from './contact-verification.js';
import { renderCustomer, type Customer } from './render.js';
import type { Cursors, Page } from '../shared/pagination.js';
import type { Environment } from '../platform/tokens.js';
import type { PlatformClock } from '../platform/platform-clock.js';

export { CUSTOMER_TYPES, ENTITY_TYPES } from './customer-fields.js';
export type { Customer } from './render.js';

export interface BusinessInfo {
  legalName?: string;
  incorporatedOn?: string;
  taxId?: string;
  [field: string]: unknown;
}

/** What a platform sends to create a customer (the interface's create request; validated by the schema). */
export interface NewCustomer {
  customerType: CustomerType;
  platformCustomerId?: string;
  umaAddress?: string;
  region?: string;
  currencies?: string[];
  email?: string;
  phoneNumber?: string;
  address?: Address;
  businessInfo?: BusinessInfo;
  [field: string]: unknown;
}

/** What a platform sends to change a customer: customerType (which must match) and the fields to change. */
export interface CustomerPatch {
  customerType: CustomerType;
  umaAddress?: string;
  currencies?: string[];
  businessInfo?: BusinessInfo;
  [field: string]: unknown;
}

export interface CustomerListFilter {
  platformCustomerId?: string | undefined;
  customerType?: CustomerType | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
  region?: string | undefined;
  currency?: string | undefined;
  umaAddress?: string | undefined;
  isIncludingDeleted?: boolean | undefined;
}

/** Request fields that are not the customer's own data: identity, the UMA address, and statuses the service sets. */
const NOT_DATA = new Set(['customerType', 'platformCustomerId', 'umaAddress', 'kycStatus', 'kybStatus', 'contactVerification']);

/**
 * Rules across fields that a schema cannot say per field: a business needs businessInfo on
 * creation, and each type refuses the other's fields; a change of email and phone number comes in
 * separate requests. Safe on input the schema has refused.
 */
export function customerRuleErrors(input: Record<string, unknown>, change = false): FieldError[] {
  const errors: FieldError[] = [];
  if (input.customerType === 'BUSINESS') {
    if (!change && input.businessInfo === undefined) errors.push({ field: 'businessInfo', message: 'is required for a BUSINESS customer' });
    for (const f of INDIVIDUAL_ONLY_FIELDS) if (input[f] !== undefined) errors.push({ field: f, message: 'applies to INDIVIDUAL customers only' });
  } else if (input.customerType === 'INDIVIDUAL' && input.businessInfo !== undefined) {
    errors.push({ field: 'businessInfo', message: 'applies to BUSINESS customers only' });
  }
  if (!change && input.customerType === 'INDIVIDUAL') errors.push(...otherDescriptionErrors(input));
  if (change && input.email !== undefined && input.phoneNumber !== undefined) {
    errors.push({ field: 'phoneNumber', message: 'cannot change in the same request as email; send them in separate PATCH calls' });
  }
  return errors;
}

/** An individual's "OTHER" choices need their description (the interface: required when OTHER is chosen). */
const OTHER_DESCRIBED: [choice: string, description: string][] = [
  ['sourceOfFundsCategories', 'sourceOfFundsOtherDescription'],
  ['sourceOfWealthCategories', 'sourceOfWealthOtherDescription'],
  ['purposeOfAccount', 'purposeOfAccountOtherDescription'],
];

/** The descriptions an individual's data lacks for the OTHER it chose; run on a new customer and on the result of a change. */
export function otherDescriptionErrors(data: Record<string, unknown>): FieldError[] {
  const chose = (v: unknown) => v === 'OTHER' || (Array.isArray(v) && v.includes('OTHER'));
  return OTHER_DESCRIBED.filter(([choice, description]) => chose(data[choice]) && data[description] === undefined).map(([choice, description]) => ({
    field: description,
    message: `is required when ${choice} is OTHER`,
  }));
}

function customerData(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([k, v]) => !NOT_DATA.has(k) && v !== undefined));
}

/** The domain of the UMA addresses the sandbox makes up (migration 008 gave older customers addresses on it too). */
export const SANDBOX_UMA_DOMAIN = 'sandbox.uma.invalid';

const currencyList = (currencies: unknown): string => (Array.isArray(currencies) && currencies.length > 0 ? `,${currencies.join(',')},` : '');

/**
 * A new customer's row: KYC/KYB starts UNVERIFIED unless `kycStatus` says otherwise (kyc.ts); without a platformCustomerId or a UMA address
 * the sandbox makes them from the id (the address on the platform's umaDomain, or a sandbox one).
 */
export function newCustomerRow(platformId: string, input: NewCustomer, now: number, umaDomain?: string, kycStatus = 'UNVERIFIED'): CustomerRow {
  const id = newId('Customer');
  const uuid = id.slice('Customer:'.length);
  const data = customerData(input);
  const contactVerification = contactVerificationAtCreation(input.region);
  if (contactVerification) data.contactVerification = contactVerification;
  return {
    id,
    platform_id: platformId,
    customer_type: input.customerType,
    platform_customer_id: input.platformCustomerId ?? uuid,
    kyc_status: kycStatus,
    data: JSON.stringify(data),
    owner_count: 0,
    uma_address: (input.umaAddress ?? `$c${uuid.replace(/-/g, '')}@${umaDomain ?? SANDBOX_UMA_DOMAIN}`).toLowerCase(),
    is_deleted: 0,
    region: input.region ?? null,
    currency_list: currencyList(input.currencies),
    created_at: now,
    updated_at: now,
  };
}

const clashMessage = (clash: repo.CustomerClash) =>
  clash === 'umaAddress' ? 'The UMA address is already used by another customer of this platform' : 'platformCustomerId is already used by an active customer of this platform';

const epoch = (dateTime: string | undefined) => (dateTime === undefined ? undefined : Date.parse(dateTime));

export class CustomerService {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly clock: PlatformClock,
  ) {}


  /** The currencies the customer holds accounts in; the platform's configuration is read only when it lists some. */
  private async accountCurrencies(uow: UnitOfWork, platformId: string, currencies: string[] | undefined): Promise<string[]> {
    return accountCurrencies(currencies, currencies?.length ? await supportedCurrencyCodes(uow.db, platformId) : []);
  }

  /**
   * A sandbox individual's kycStatus is decided at creation by its fullName (kyc.ts), with its
   * CUSTOMER.KYC_* webhook; a business starts UNVERIFIED (POST /verifications decides it).
   * `within`: the request's unit of work, when it has one (an Idempotency-Key).
   */
  async create(platformId: string, environment: Environment, input: NewCustomer, within?: UnitOfWork): Promise<Customer> {
    const umaDomain = input.umaAddress === undefined ? ((await findWebhookConfig((within ?? this.store).db, platformId))?.uma_domain ?? undefined) : undefined;
    const row = newCustomerRow(platformId, input, await this.clock.now(platformId), umaDomain, kycStatusAtCreation(environment, input.customerType, input.fullName));
    await this.store.transaction(async (uow) => {
      const clash = await repo.insertCustomer(uow, row);
      if (clash) throw new ConflictError(clash, clashMessage(clash));
      await openAccounts(uow, platformId, row.id, await this.accountCurrencies(uow, platformId, input.currencies), row.created_at);
      await recordKycWebhook(uow, row, row.created_at);
    }, within);
    return renderCustomer(row);
  }

  /**
   * create for many inputs in the caller's unit of work (a bulk import's batch), set-based: one
   * read of the platform's settings, one query for the platformCustomerIds and UMA addresses
   * already held, then a statement per table (customers, accounts, webhook events). Answers per
   * input, in order, the customer or the error create would have thrown: an input clashing with an
   * active customer, or with an earlier input of the same call, is refused as it would be if they
   * were created one after another; one whose value another writer took since that query (the
   * unique indexes skip it) is refused as create refuses it. No savepoint: a refusal writes nothing.
   */
  async createMany(uow: UnitOfWork, platformId: string, environment: Environment, inputs: readonly NewCustomer[]): Promise<(Customer | DomainError)[]> {
    if (inputs.length === 0) return [];
    const umaDomain = inputs.some((input) => input.umaAddress === undefined) ? ((await findWebhookConfig(uow.db, platformId))?.uma_domain ?? undefined) : undefined;
    const supported = inputs.some((input) => input.currencies?.length) ? await supportedCurrencyCodes(uow.db, platformId) : [];
    const now = await this.clock.now(platformId, uow);
    const rows = inputs.map((input) => newCustomerRow(platformId, input, now, umaDomain, kycStatusAtCreation(environment, input.customerType, input.fullName)));
    const held = await repo.activeHolders(uow, platformId, {
      platformCustomerIds: [...new Set(inputs.flatMap((input) => (input.platformCustomerId === undefined ? [] : [input.platformCustomerId])))],
      umaAddresses: [...new Set(rows.filter((_, i) => inputs[i]!.umaAddress !== undefined).map((r) => r.uma_address))],
    });
    const outcomes: (Customer | DomainError)[] = new Array(inputs.length);
    const free: number[] = [];
    for (const [i, row] of rows.entries()) {
      const clash: repo.CustomerClash | undefined = held.platformCustomerIds.has(row.platform_customer_id) ? 'platformCustomerId' : held.umaAddresses.has(row.uma_address) ? 'umaAddress' : undefined;
      if (clash) {
        outcomes[i] = new ConflictError(clash, clashMessage(clash));
        continue;
      }
      // Held from here on: a later input with either value clashes with this one.
      held.platformCustomerIds.add(row.platform_customer_id);
      held.umaAddresses.add(row.uma_address);
      free.push(i);
    }
    const inserted = await repo.insertCustomersIfFree(uow, free.map((i) => rows[i]!));
    const created = free.filter((i) => inserted.has(rows[i]!.id));
    await insertAccountsIfAbsent(uow, created.flatMap((i) => newAccountRows(platformId, rows[i]!.id, accountCurrencies(inputs[i]!.currencies, supported), now)));
    const events: WebhookEventInput[] = [];
    for (const i of created) {
      const customer = renderCustomer(rows[i]!);
      outcomes[i] = customer;
      const type = kycWebhookType(rows[i]!, rows[i]!.kyc_status);
      if (type) events.push({ platformId, type, fields: { data: customer } });
    }
    for (let e = 0; e < events.length; e += 1000) await recordWebhookEvents(uow, events.slice(e, e + 1000), now);
    // Taken since the read above (another writer committed first): named as create names it.
    for (const i of free.filter((i) => !inserted.has(rows[i]!.id))) {
      const clash = (await repo.activeClash(uow.db, platformId, rows[i]!.id, { platformCustomerId: rows[i]!.platform_customer_id })) ?? 'umaAddress';
      outcomes[i] = new ConflictError(clash, clashMessage(clash));
    }
    return outcomes;
  }

  /** A deleted customer stays readable, with isDeleted true. */
  async get(platformId: string, id: string): Promise<Customer> {
    const row = await repo.findCustomer(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Customer', id);
    return renderCustomer(row);
  }

  /** Changes the given fields (businessInfo field by field; currencies and address as a whole); customerType must be the customer's. */
  async update(platformId: string, id: string, patch: CustomerPatch, within?: UnitOfWork): Promise<Customer> {
    return this.store.transaction(async (uow) => {
      const row = await repo.lockCustomer(uow, platformId, id);
      if (!row) throw new NotFoundError('Customer', id);
      if (row.is_deleted === 1) throw new DeletedError(`Customer ${id} has been deleted`);
      if (patch.customerType !== row.customer_type) {
        throw new ValidationError([{ field: 'customerType', message: `must be the customer's type, ${row.customer_type}`, constraint: { enum: [row.customer_type] } }]);
      }
      const current = JSON.parse(row.data) as Record<string, unknown>;
      const changes = customerData(patch);
      const data = { ...current, ...changes };
      if (patch.businessInfo !== undefined) data.businessInfo = { ...(current.businessInfo as object | undefined), ...patch.businessInfo };
      const contactVerification = contactVerificationAfterChange(current, changes);
      if (contactVerification) data.contactVerification = contactVerification;
      const undescribed = otherDescriptionErrors(data);
      if (undescribed.length > 0) throw new ValidationError(undescribed);
      const umaAddress = patch.umaAddress?.toLowerCase() ?? row.uma_address;
      if (umaAddress !== row.uma_address && (await repo.activeClash(uow.db, platformId, id, { umaAddress }))) throw new ConflictError('umaAddress', clashMessage('umaAddress'));
      const next = { data: JSON.stringify(data), uma_address: umaAddress, region: row.region, currency_list: currencyList(data.currencies), updated_at: await this.clock.now(platformId, uow) };
      try {
        await repo.updateCustomer(uow.db, platformId, id, next);
      } catch (err) {
        const clash = repo.customerClashOf(err);
        throw clash ? new ConflictError(clash, clashMessage(clash)) : err;
      }
      // A new currency opens its account; a dropped one keeps its account (and any balance).
      if (patch.currencies !== undefined) await openAccounts(uow, platformId, id, await this.accountCurrencies(uow, platformId, patch.currencies), next.updated_at);
      return renderCustomer({ ...row, ...next });
    }, within);
  }

  /** Soft delete: the customer stays readable with isDeleted true, leaves the lists and frees its platformCustomerId and UMA address. */
  async delete(platformId: string, id: string): Promise<Customer> {
    return this.store.transaction(async (uow) => {
      const row = await repo.lockCustomer(uow, platformId, id);
      if (!row) throw new NotFoundError('Customer', id);
      if (row.is_deleted === 1) throw new DeletedError(`Customer ${id} has been deleted already`);
      const now = await this.clock.now(platformId, uow);
      await repo.markCustomerDeleted(uow.db, platformId, id, now);
      return renderCustomer({ ...row, is_deleted: 1, updated_at: now });
    });
  }

  async list(platformId: string, limit: number, cursor: string | undefined, filter: CustomerListFilter = {}): Promise<Page<Customer>> {
    const f: repo.CustomerFilter = {
      platformCustomerId: filter.platformCustomerId,
      customerType: filter.customerType,
      createdAfter: epoch(filter.createdAfter),
      createdBefore: epoch(filter.createdBefore),
      updatedAfter: epoch(filter.updatedAfter),
      updatedBefore: epoch(filter.updatedBefore),
      region: filter.region,
      currency: filter.currency,
      umaAddress: filter.umaAddress?.toLowerCase(),
      includeDeleted: filter.isIncludingDeleted === true,
    };
    // The cursor is bound to the platform and to every filter.
    const scope = `customers:${platformId}:${JSON.stringify(Object.entries(f).filter(([, v]) => v !== undefined))}`;
    const q = this.cursors.query(scope, limit, cursor);
    const { rows, total } = await repo.listCustomers(this.store.db, platformId, q, f);
    return this.cursors.page(scope, q, rows, total, renderCustomer);
  }
}
