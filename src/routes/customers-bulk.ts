import type { FastifyRequest } from 'fastify';
import type { StagedImport } from '../domain/customers/bulk-imports.js';
import { ValidationError, type FieldError } from '../domain/shared/errors.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import { multipartBody, multipartErrors, multipartFile, multipartRequired, registerMultipart } from '../http/multipart-body.js';
import { fieldErrorsFromAjv } from '../http/validation.js';
import { errorResponses, IdParamSchema } from '../schemas/common.js';
import { BulkCsvBody, BulkImportAcceptedSchema, BulkImportJobSchema } from '../schemas/customers-bulk.js';
import type { ApiInstance, RouteModule } from './types.js';

const tags = ['Customers'];

/** Staged uploads whose request accepted them; any other is dropped when its request ends. */
const accepted = new WeakSet<FastifyRequest>();

function checkedUpload(request: FastifyRequest): StagedImport {
  multipartRequired(request);
  const failed = request.validationError as unknown as { validation: never; validationContext?: string } | undefined;
  const errors: FieldError[] = failed ? fieldErrorsFromAjv(failed.validation, failed.validationContext ?? 'body') : [];
  const seen = new Set(errors.map((e) => e.field));
  errors.push(...multipartErrors(request).filter((e) => !seen.has(e.field)));
  const staged = multipartFile<StagedImport>(request);
  if (!staged && !errors.some((e) => e.field === 'file')) errors.push({ field: 'file', message: 'must be a file part (with a filename)' });
  if (errors.length > 0) throw new ValidationError(errors);
  return staged!;
}

export const customerBulkRoutes: RouteModule = (app, { bulkImports, config }) => {
  // Its own scope: multipart/form-data is parsed on the upload routes only.
  app.register(async (scope: ApiInstance) => {
    await registerMultipart(scope);
    scope.post(
      '/customers/bulk/csv',
      {
        config: { permission: 'TRANSACT' },
        attachValidation: true,
        preValidation: multipartBody<StagedImport>({
          fileField: 'file',
          maxFileBytes: () => config.bulkImportMaxBytes,
          consume: (request, part) => bulkImports.stage(request.principal.platformId, request.principal.environment, part.stream),
        }),
        // An upload staged for a request that did not accept it (refused, replayed, failed) is dropped before the answer goes out.
        onSend: async (request, _reply, payload) => {
          const staged = multipartFile<StagedImport>(request);
          if (staged && !accepted.has(request)) await bulkImports.discard(staged.importId, requestUnitOfWork(request));
          return payload;
        },
        schema: {
          tags,
          summary: 'Upload customers via CSV file',
          description:
            `multipart/form-data with the CSV in \`file\` (at most BULK_IMPORT_MAX_BYTES, ${config.bulkImportMaxBytes} bytes, or 413). The CSV is read as a stream and stored in batches; ` +
            'the worker then creates each row as POST /customers would, with the same validation, batch by batch. Columns: the interface\'s, plus businessIncorporatedOn (this service\'s extension: ' +
            'POST /customers requires it for a business). When done: BULK_UPLOAD.COMPLETED, or BULK_UPLOAD.FAILED when no row was imported or the CSV could not be read.',
          consumes: ['multipart/form-data'],
          body: BulkCsvBody,
          response: { 202: BulkImportAcceptedSchema, ...errorResponses(400, 413, 415) },
        },
      },
      async (request, reply) => {
        const staged = checkedUpload(request);
        const job = await bulkImports.accept(request.principal.platformId, staged, requestUnitOfWork(request));
        accepted.add(request);
        return reply.code(202).send({ jobId: job.id, status: job.status === 'PROCESSING' ? 'PROCESSING' : 'PENDING' });
      },
    );
  });

  app.get(
    '/customers/bulk/jobs/:id',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get bulk import job status',
        description: 'Status, progress and one error entry per row not imported. Unknown or of another platform: 404 BULK_UPLOAD_JOB_NOT_FOUND.',
        params: IdParamSchema,
        response: { 200: BulkImportJobSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => bulkImports.get(request.principal.platformId, request.params.id),
  );
};
