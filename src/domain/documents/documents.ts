import type { PlatformClock } from '../platform/platform-clock.js';
import type { DocumentsOnFile } from '../verifications/documents-on-file.js';
import { findCustomer } from '../../store/customers-repo.js';
import * as repo from '../../store/documents-repo.js';
import { findOwner } from '../../store/owners-repo.js';
import type { Executor, Store } from '../../store/store.js';
import type { DocumentRow } from '../../store/tables/documents.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { DeletedError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Cursors, Page } from '../shared/pagination.js';
import { fileErrors, sniffContentType, type UploadedFile } from './file-types.js';

export const DOCUMENT_TYPES = [
  'PASSPORT',
  'DRIVERS_LICENSE',
  'NATIONAL_ID',
  'PROOF_OF_ADDRESS',
  'BANK_STATEMENT',
  'TAX_RETURN',
  'CERTIFICATE_OF_INCORPORATION',
  'ARTICLES_OF_INCORPORATION',
  'ARTICLES_OF_ASSOCIATION',
  'STATE_REGISTRY_EXCERPT',
  'GOOD_STANDING_CERTIFICATE',
  'INFORMATION_STATEMENT',
  'INCUMBENCY_CERTIFICATE',
  'BUSINESS_LICENSE',
  'SHAREHOLDER_REGISTER',
  'POWER_OF_ATTORNEY',
  'UTILITY_BILL',
  'ELECTRICITY_BILL',
  'RENT_OR_LEASE_AGREEMENT',
  'DIRECTOR_REGISTRY',
  'TRUST_AGREEMENT',
  'STATE_COMPANY_REGISTRY',
  'PARTNERSHIP_CONTROL_AGREEMENT',
  'PARTNERSHIP_AGREEMENT',
  'SELFIE',
  'OTHER',
] as const;
export const DOCUMENT_SIDES = ['FRONT', 'BACK'] as const;

export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** A document's metadata as a client sends it (the multipart fields other than the file). */
export interface DocumentFields {
  documentType: DocumentType;
  side?: (typeof DOCUMENT_SIDES)[number];
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
}

export interface NewDocument extends DocumentFields {
  documentHolder: string;
}

export interface Document extends NewDocument {
  id: string;
  fileName: string;
  createdAt: string;
  updatedAt: string;
}

/** The document's JSON, fields in the order of the response schema, absent optionals omitted. */
function renderDocument(d: Document): string {
  return JSON.stringify({
    id: d.id,
    documentHolder: d.documentHolder,
    documentType: d.documentType,
    side: d.side,
    country: d.country,
    documentNumber: d.documentNumber,
    issuingAuthority: d.issuingAuthority,
    fileName: d.fileName,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  });
}

const parse = (row: DocumentRow): Document => JSON.parse(row.body) as Document;

function contentTypeOf(file: UploadedFile): string {
  const errors = fileErrors(file);
  if (errors.length > 0) throw new ValidationError(errors);
  return sniffContentType(file.bytes)!;
}

/** Documents (KYC/KYB evidence) of customers and beneficial owners, with their bytes kept in the database. */
export class DocumentService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly cursors: Cursors,
  ) {}

  /** Every timestamp this service writes. */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /** Stores a document of an existing holder of the platform scope: unknown or foreign holder: not found; a deleted customer: DeletedError. */
  async upload(platformId: string, input: NewDocument, file: UploadedFile, within?: UnitOfWork): Promise<Document> {
    const contentType = contentTypeOf(file);
    return this.store.transaction(async (uow) => {
      await this.checkHolder(uow.db, platformId, input.documentHolder);
      const now = await this.now(platformId, uow);
      const at = new Date(now).toISOString();
      const document: Document = { ...pickFields(input), documentHolder: input.documentHolder, id: newId('Document'), fileName: file.fileName, createdAt: at, updatedAt: at };
      const row: DocumentRow = { id: document.id, platform_id: platformId, holder_id: input.documentHolder, document_type: input.documentType, body: renderDocument(document), created_at: now, updated_at: now };
      await repo.insertDocument(uow, row, { content_type: contentType, bytes: file.bytes });
      return document;
    }, within);
  }

  async get(platformId: string, id: string): Promise<Document> {
    const row = await repo.findDocument(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Document', id);
    return parse(row);
  }

  /** Replaces the file and the metadata (the holder stays); updatedAt is set. */
  async replace(platformId: string, id: string, input: DocumentFields, file: UploadedFile, within?: UnitOfWork): Promise<Document> {
    const contentType = contentTypeOf(file);
    return this.store.transaction(async (uow) => {
      const row = await repo.findDocument(uow.db, platformId, id);
      if (!row) throw new NotFoundError('Document', id);
      const current = parse(row);
      const now = await this.now(platformId, uow);
      const document: Document = { ...pickFields(input), id, documentHolder: current.documentHolder, fileName: file.fileName, createdAt: current.createdAt, updatedAt: new Date(now).toISOString() };
      await repo.replaceDocument(uow, platformId, id, { document_type: input.documentType, body: renderDocument(document), updated_at: now }, { content_type: contentType, bytes: file.bytes });
      return document;
    }, within);
  }

  /** Deletes the document and its bytes for good. */
  async delete(platformId: string, id: string, within?: UnitOfWork): Promise<void> {
    await this.store.transaction(async (uow) => {
      if (!(await repo.deleteDocument(uow, platformId, id))) throw new NotFoundError('Document', id);
    }, within);
  }

  /** Oldest first (ties by id); the cursor is bound to the platform and the holder filter. */
  async list(platformId: string, limit: number, cursor: string | undefined, documentHolder: string | undefined): Promise<Page<Document>> {
    const scope = `documents:${platformId}:${documentHolder ?? ''}`;
    const q = this.cursors.query(scope, limit, cursor);
    const { rows, total } = await repo.listDocuments(this.store.db, platformId, q, documentHolder);
    return this.cursors.page(scope, q, rows, total, parse);
  }

  /** Which document types are on file for a holder (customer or beneficial owner) of the platform scope, sorted; none for an unknown holder. */
  async typesOnFile(platformId: string, holderId: string, within?: UnitOfWork): Promise<DocumentType[]> {
    return (await repo.documentTypesOf((within ?? this.store).db, platformId, holderId)) as DocumentType[];
  }

  /** The verifications' port (verifications/documents-on-file.ts): each holder's document types on file, read in the verification's unit of work. */
  readonly onFile: DocumentsOnFile = async (uow, platformId, holderIds) => {
    const onFile = new Map<string, ReadonlySet<string>>();
    for (const holderId of holderIds) onFile.set(holderId, new Set(await this.typesOnFile(platformId, holderId, uow)));
    return onFile;
  };

  /** A document's stored bytes and their content type (as sniffed at upload). */
  async file(platformId: string, id: string): Promise<{ contentType: string; bytes: Buffer }> {
    const row = await repo.findDocumentFile(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Document', id);
    return { contentType: row.content_type, bytes: Buffer.from(row.bytes) };
  }

  private async checkHolder(db: Executor, platformId: string, holderId: string): Promise<void> {
    if (holderId.startsWith('BeneficialOwner:')) {
      if (!(await findOwner(db, platformId, holderId))) throw new NotFoundError('BeneficialOwner', holderId);
      return;
    }
    const customer = await findCustomer(db, platformId, holderId);
    if (!customer) throw new NotFoundError('Customer', holderId);
    if (customer.is_deleted === 1) throw new DeletedError(`Customer ${holderId} has been deleted`);
  }
}

function pickFields(input: DocumentFields): DocumentFields {
  const { documentType, side, country, documentNumber, issuingAuthority } = input;
  return { documentType, side, country, documentNumber, issuingAuthority } as DocumentFields;
}
