import { Type } from 'typebox';
import { DOCUMENT_SIDES, DOCUMENT_TYPES } from '../domain/documents/documents.js';
import { PageQuerySchema } from './common.js';
import { CountryCodeSchema, text } from './fields.js';

const HolderId = Type.String({ pattern: '^(Customer|BeneficialOwner):', maxLength: 128, description: 'The Customer or BeneficialOwner id the document belongs to' });

const metadataFields = {
  documentType: Type.Enum([...DOCUMENT_TYPES]),
  side: Type.Optional(Type.Enum([...DOCUMENT_SIDES], { description: 'Which side of a two-sided document (a driver\'s license, a national ID)' })),
  country: CountryCodeSchema('ISO 3166-1 alpha-2 code of the country that issued the document'),
  documentNumber: Type.Optional(text(64, 'The document\'s identification number')),
  issuingAuthority: Type.Optional(text(200, 'The agency or organization that issued the document')),
};

const FileField = Type.String({ format: 'binary', description: 'The document file: PDF, JPEG or PNG (checked by its content), at most DOCUMENT_MAX_BYTES (10 MiB by default)' });

export const DocumentSchema = Type.Object(
  {
    id: Type.String({ examples: ['Document:019542f5-b3e7-7d02-8000-000000000001'] }),
    documentHolder: Type.String({ description: 'The Customer or BeneficialOwner id the document belongs to' }),
    ...metadataFields,
    fileName: Type.String({ description: 'The file name the upload gave' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { description: 'A verification document of a customer or beneficial owner' },
);

export const UploadDocumentBody = Type.Object(
  { file: FileField, documentHolder: HolderId, ...metadataFields },
  { additionalProperties: false, description: 'multipart/form-data: the file in `file`, the metadata in the other fields' },
);

export const ReplaceDocumentBody = Type.Object(
  { file: FileField, ...metadataFields },
  { additionalProperties: false, description: 'multipart/form-data: the new file in `file`, the new metadata in the other fields; the holder stays' },
);

export const ListDocumentsQuery = Type.Object(
  { documentHolder: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only the documents of this Customer or BeneficialOwner' })), ...PageQuerySchema },
  { additionalProperties: false },
);
