import { LRUCache } from 'lru-cache';
import { countNewOwner, findCustomer } from '../../store/customers-repo.js';
import { findOwner, insertOwner, lockOwner, OwnerPageReader, updateOwner } from '../../store/owners-repo.js';
import type { Position } from '../../store/page.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { DeletedError, lookupableId, NotFoundError, RevokedCredentialsError, ValidationError, type FieldError } from '../shared/errors.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { newId } from '../shared/ids.js';
import type { Cursors } from '../shared/pagination.js';

export const OWNER_ROLES = ['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'] as const;
export const ID_TYPES = ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'] as const;
export const KYC_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'] as const;

export type OwnerRole = (typeof OWNER_ROLES)[number];
export type IdType = (typeof ID_TYPES)[number];
export type KycStatus = (typeof KYC_STATUSES)[number];

export interface Address {
  line1: string;
  line2?: string;
  city?: string;
  state?: string;
  postalCode: string;
  country: string;
}

export interface PersonalInfo {
  firstName: string;
  middleName?: string;
  lastName: string;
  birthDate: string;
  nationality: string;
  email?: string;
  phoneNumber?: string;
  address: Address;
  idType: IdType;
  identifier: string;
  countryOfIssuance?: string;
}

export interface BeneficialOwner {
  id: string;
  customerId: string;
  roles: OwnerRole[];
  ownershipPercentage: number;
  personalInfo: PersonalInfo;
  kycStatus: KycStatus;
  createdAt: string;
  updatedAt: string;
}

export interface NewBeneficialOwner {
  customerId: string;
  roles: OwnerRole[];
  ownershipPercentage: number;
  personalInfo: PersonalInfo;
}

export interface BeneficialOwnerPatch {
  roles?: OwnerRole[];
  ownershipPercentage?: number;
  personalInfo?: Partial<PersonalInfo>;
}

/** An owner rendered as the API's JSON text; stored at write time and sent as is. */
export type OwnerJson = string;

/** A page of owners, already rendered; the HTTP layer only wraps them in the list envelope. */
export interface OwnerPage {
  /** The owners' JSON objects in page order, UTF-8, ready to sit between the list's brackets (empty for none). */
  ownersJson: Buffer;
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

/** Before every owner: (created_at, id) > (-1, '') holds for all rows. */
const START: Position = { createdAt: -1, id: '' };

const notABusinessCustomer = (): FieldError => ({ field: 'customerId', message: 'is not a business customer of this platform' });

function pick<T extends object>(source: T, keys: readonly (keyof T)[]): T {
  const out = {} as T;
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;
const PERSONAL_KEYS = ['firstName', 'middleName', 'lastName', 'birthDate', 'nationality', 'email', 'phoneNumber', 'address', 'idType', 'identifier', 'countryOfIssuance'] as const;

export function renderAddress(a: Address): Address {
  return pick(a, ADDRESS_KEYS);
}

/** The owner's JSON, fields in the order of the response schema, absent optionals omitted. */
export function renderOwner(o: BeneficialOwner): OwnerJson {
  const personalInfo = pick(o.personalInfo, PERSONAL_KEYS);
  personalInfo.address = renderAddress(o.personalInfo.address);
  return JSON.stringify({
    id: o.id,
    customerId: o.customerId,
    roles: o.roles,
    ownershipPercentage: o.ownershipPercentage,
    personalInfo,
    kycStatus: o.kycStatus,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  });
}

const ID_OPEN = Buffer.from('{"id":"');
const CREATED_AT_OPEN = Buffer.from('"createdAt":"');
const QUOTE = 0x22;

/**
 * An owner's page position, (createdAt, id), read off its rendered JSON without parsing it (a
 * fifth of JSON.parse's time, on every page that has a next one). renderOwner writes `id` first and
 * `createdAt` as the last top-level key of that name; a quote inside any string value is escaped,
 * so `"createdAt":"` can only be that key, and neither value contains a quote.
 */
export function ownerPosition(json: Buffer): Position {
  if (!json.subarray(0, ID_OPEN.length).equals(ID_OPEN)) throw new Error('owner JSON does not start with its id');
  const createdAtStart = json.lastIndexOf(CREATED_AT_OPEN) + CREATED_AT_OPEN.length;
  const createdAt = Date.parse(json.toString('latin1', createdAtStart, json.indexOf(QUOTE, createdAtStart)));
  if (createdAtStart < CREATED_AT_OPEN.length || !Number.isSafeInteger(createdAt)) throw new Error('owner JSON has no createdAt');
  return { createdAt, id: json.toString('utf8', ID_OPEN.length, json.indexOf(QUOTE, ID_OPEN.length)) };
}

interface KeptPage {
  /** The customer's owners' version the page was read at. */
  version: number;
  page: OwnerPage;
}

export class BeneficialOwnerService {
  private readonly pages: OwnerPageReader;
  /** Undefined when OWNER_PAGE_CACHE_BYTES is 0: every page is read anew. */
  private readonly kept: LRUCache<string, KeptPage> | undefined;

  /** `keptPageBytes`: what this process keeps of owner pages it answered (see list); 0 keeps none. */
  constructor(private readonly store: Store, private readonly cursors: Cursors, private readonly clock: PlatformClock, keptPageBytes = 32 * 1024 * 1024) {
    this.pages = new OwnerPageReader(store);
    // At most keptPageBytes of pages, least recently used dropped first; a page larger than the whole bound is not kept.
    this.kept = keptPageBytes === 0 ? undefined : new LRUCache({ maxSize: keptPageBytes, sizeCalculation: (k) => k.page.ownersJson.length + (k.page.nextCursor?.length ?? 0) + 256 });
  }

  /**
   * Adds an owner to an active business customer of the platform and counts it, in one transaction.
   * Unknown or foreign customer: not found; deleted: DeletedError; an individual: 400 on customerId.
   * `within`: the request's unit of work, when it has one (an Idempotency-Key).
   */
  async create(platformId: string, input: NewBeneficialOwner, within?: UnitOfWork): Promise<OwnerJson> {
    const id = newId('BeneficialOwner');
    return this.store.transaction(async (uow) => {
      // The creation time is stamped under the customer's row lock, so owners show in commit order.
      const now = await countNewOwner(uow.db, platformId, input.customerId, await this.clock.now(platformId, uow));
      if (now === undefined) {
        const customer = await findCustomer(uow.db, platformId, input.customerId);
        if (!customer) throw new NotFoundError('Customer', input.customerId);
        if (customer.is_deleted === 1) throw new DeletedError(`Customer ${input.customerId} has been deleted`);
        throw new ValidationError([notABusinessCustomer()]);
      }
      const at = new Date(now).toISOString();
      const body = renderOwner({
        id,
        customerId: input.customerId,
        roles: input.roles,
        ownershipPercentage: input.ownershipPercentage,
        personalInfo: input.personalInfo,
        kycStatus: 'UNVERIFIED',
        createdAt: at,
        updatedAt: at,
      });
      await insertOwner(uow.db, { customer_id: input.customerId, created_at: now, id, platform_id: platformId, updated_at: now, body });
      return body;
    }, within);
  }

  /** The reference check alone, for a request whose other fields failed: reported with them in one 400. */
  async referenceErrors(platformId: string, customerId: unknown, within?: UnitOfWork): Promise<FieldError[]> {
    if (!lookupableId(customerId)) return [];
    const customer = await findCustomer((within ?? this.store).db, platformId, customerId);
    return customer?.customer_type === 'BUSINESS' ? [] : [notABusinessCustomer()];
  }

  async get(platformId: string, id: string): Promise<OwnerJson> {
    const row = await findOwner(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('BeneficialOwner', id);
    return row.body;
  }

  /** Applies the given fields (personalInfo field by field); the rest stays as it is. */
  async update(platformId: string, id: string, patch: BeneficialOwnerPatch, within?: UnitOfWork): Promise<OwnerJson> {
    return this.store.transaction(async (uow) => {
      const row = await lockOwner(uow, platformId, id);
      if (!row) throw new NotFoundError('BeneficialOwner', id);
      const current = JSON.parse(row.body) as BeneficialOwner;
      const now = await this.clock.now(platformId, uow);
      const body = renderOwner({
        ...current,
        roles: patch.roles ?? current.roles,
        ownershipPercentage: patch.ownershipPercentage ?? current.ownershipPercentage,
        personalInfo: { ...current.personalInfo, ...patch.personalInfo },
        updatedAt: new Date(now).toISOString(),
      });
      await updateOwner(uow.db, row, body, now);
      return body;
    }, within);
  }

  /**
   * One page in (creation time, id) order. The customer check, the count and the rows come from
   * one statement; a bad cursor and a bad customer are reported together. The same statement
   * confirms that `tokenId`, the request's token, is live (see Principal.unconfirmed); when the
   * customer is not found it cannot, and the error answer confirms it instead.
   *
   * A page answered before is kept (up to OWNER_PAGE_CACHE_BYTES per process) with the version of
   * the customer's owners it was read at, which every write to them moves in its own transaction
   * (migration 015). Asked again, only the token and the version are read, in a statement that
   * returns no owner (on PostgreSQL, one for all the requests of a turn of the event loop); the same
   * version means the same page, so it is answered as kept, and another version reads it anew. A
   * revoked token and another process's write are seen at once, as the check reads the database.
   */
  async list(tokenId: string, platformId: string, customerId: string, limit: number, cursor: string | undefined): Promise<OwnerPage> {
    const scope = `owners:${platformId}:${customerId}`;
    const errors: FieldError[] = [];
    let after = START;
    if (cursor !== undefined) {
      try {
        after = this.cursors.decode(scope, cursor);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        errors.push(...err.errors);
      }
    }
    const key = `${platformId}\u0000${customerId}\u0000${limit}\u0000${after.createdAt}\u0000${after.id}`;
    const kept = errors.length === 0 ? this.kept?.get(key) : undefined;
    if (kept) {
      const now = await this.pages.version({ tokenId, platformId, customerId });
      if (now && !now.tokenLive) throw new RevokedCredentialsError(tokenId);
      if (now?.version === kept.version) return kept.page;
      this.kept?.delete(key);
    }
    const found = await this.pages.read({ tokenId, platformId, customerId, afterCreatedAt: after.createdAt, afterId: after.id, limit });
    if (found && !found.tokenLive) throw new RevokedCredentialsError(tokenId);
    const read = found?.page;
    if (read?.customerType !== 'BUSINESS') errors.unshift(notABusinessCustomer());
    if (errors.length > 0 || !read) throw new ValidationError(errors);
    const { ownersJson, ownerCount: totalCount, lastOwnerJson } = read;
    const page: OwnerPage = lastOwnerJson
      ? { ownersJson, hasMore: true, nextCursor: this.cursors.encode(scope, ownerPosition(lastOwnerJson)), totalCount }
      : { ownersJson, hasMore: false, totalCount };
    this.kept?.set(key, { version: read.version, page });
    return page;
  }
}
