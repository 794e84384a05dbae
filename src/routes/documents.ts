import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { DocumentFields, NewDocument } from '../domain/documents/documents.js';
import { fileErrors, type UploadedFile } from '../domain/documents/file-types.js';
import { ValidationError, type FieldError } from '../domain/shared/errors.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import { multipartBody, multipartErrors, multipartRequired, multipartFile, readBounded, registerMultipart } from '../http/multipart-body.js';
import { fieldErrorsFromAjv } from '../http/validation.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { DocumentSchema, ListDocumentsQuery, ReplaceDocumentBody, UploadDocumentBody } from '../schemas/documents.js';
import type { ApiInstance, RouteModule } from './types.js';

const tags = ['Documents'];
const MULTIPART = ['multipart/form-data'];

/**
 * The file, with the schema's failures, the form's own and the file's content check reported
 * together, one entry per field. A failed path parameter is reported alone.
 */
function checkedUpload(request: FastifyRequest): UploadedFile {
  multipartRequired(request);
  const failed = request.validationError as unknown as { validation: never; validationContext?: string } | undefined;
  const context = failed?.validationContext ?? 'body';
  const errors: FieldError[] = failed ? fieldErrorsFromAjv(failed.validation, context) : [];
  if (context !== 'body') throw new ValidationError(errors);
  const seen = new Set(errors.map((e) => e.field));
  const add = (more: FieldError[]) => more.filter((e) => !seen.has(e.field)).forEach((e) => (errors.push(e), seen.add(e.field)));
  add(multipartErrors(request));
  const file = multipartFile<UploadedFile>(request);
  if (!file && !seen.has('file')) add([{ field: 'file', message: 'must be a file part (with a filename)' }]);
  if (file) add(fileErrors(file));
  if (errors.length > 0) throw new ValidationError(errors);
  return file!;
}

export const documentRoutes: RouteModule = (app, services) => {
  const { documents, config } = services;
  const readForm = multipartBody<UploadedFile>({
    fileField: 'file',
    maxFileBytes: () => config.documentMaxBytes,
    consume: async (request, part) => {
      const length = Number(request.headers['content-length']);
      const bytes = await readBounded(part.stream, Number.isSafeInteger(length) ? length : undefined, config.documentMaxBytes);
      return { fileName: part.fileName, declaredType: part.mimeType, bytes };
    },
  });
  const limit = `at most DOCUMENT_MAX_BYTES (${config.documentMaxBytes} bytes) or 413 PAYLOAD_TOO_LARGE`;

  // Its own scope: multipart/form-data is parsed on these routes only.
  app.register(async (scope: ApiInstance) => {
    await registerMultipart(scope);

    scope.post(
      '/documents',
      {
        config: { permission: 'TRANSACT' },
        attachValidation: true,
        preValidation: readForm,
        schema: {
          tags,
          summary: 'Upload a document',
          description:
            `multipart/form-data: the file in \`file\` (PDF, JPEG or PNG, checked against its content; ${limit}), the metadata in the other fields. ` +
            'documentHolder: a customer (unknown or of another platform: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED) or a beneficial owner (unknown: 404 REFERENCE_NOT_FOUND) of the platform.',
          consumes: MULTIPART,
          body: UploadDocumentBody,
          response: { 201: DocumentSchema, ...errorResponses(400, 404, 410, 413, 415) },
        },
      },
      async (request, reply) => {
        const file = checkedUpload(request);
        return reply.code(201).send(await documents.upload(request.principal.platformId, request.body as NewDocument, file, requestUnitOfWork(request)));
      },
    );

    scope.put(
      '/documents/:id',
      {
        config: { permission: 'TRANSACT' },
        attachValidation: true,
        preValidation: readForm,
        schema: {
          tags,
          summary: 'Replace a document',
          description: `multipart/form-data, as on upload without documentHolder: the file and every metadata field are replaced (${limit}); the holder stays; updatedAt is set.`,
          consumes: MULTIPART,
          params: IdParamSchema,
          body: ReplaceDocumentBody,
          response: { 200: DocumentSchema, ...errorResponses(400, 404, 413, 415) },
        },
      },
      async (request) => {
        const file = checkedUpload(request);
        return documents.replace(request.principal.platformId, request.params.id, request.body as DocumentFields, file);
      },
    );
  });

  app.get(
    '/documents',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List documents',
        description: 'Oldest first (ties by id); documentHolder narrows the list to one holder. A cursor is bound to the filter it was issued for.',
        querystring: ListDocumentsQuery,
        response: { 200: pageSchema(DocumentSchema, 'A page of documents, oldest first'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, documentHolder } = request.query;
      return documents.list(request.principal.platformId, limit ?? 20, cursor, documentHolder);
    },
  );

  app.get(
    '/documents/:id',
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get a document', description: 'The metadata; the bytes are not returned.', params: IdParamSchema, response: { 200: DocumentSchema, ...errorResponses(400, 404) } } },
    async (request) => documents.get(request.principal.platformId, request.params.id),
  );

  app.delete(
    '/documents/:id',
    {
      config: { permission: 'TRANSACT' },
      schema: { tags, summary: 'Delete a document', description: 'Deletes the document and its bytes for good.', params: IdParamSchema, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 404) } },
    },
    async (request, reply) => {
      await documents.delete(request.principal.platformId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
