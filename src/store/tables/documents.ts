export interface DocumentRow {
  id: string;
  platform_id: string;
  /** The Customer or BeneficialOwner id the document belongs to. */
  holder_id: string;
  document_type: string;
  /** The document exactly as the API renders it (JSON), written with every change. */
  body: string;
  created_at: number;
  updated_at: number;
  /** Place on the platform's list, given at commit (store/list-clock.ts). */
  list_position?: number;
}

/** A document's bytes, apart from its metadata so lists never read them. */
export interface DocumentFileRow {
  document_id: string;
  content_type: string;
  bytes: Buffer;
}

export interface DocumentTables {
  documents: DocumentRow;
  document_files: DocumentFileRow;
}
