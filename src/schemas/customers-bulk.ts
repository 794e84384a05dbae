import { Type } from 'typebox';

const JobId = Type.String({ description: 'The import job id', examples: ['Job:019542f5-b3e7-7d02-8000-000000000006'] });

export const BulkImportAcceptedSchema = Type.Object(
  { jobId: JobId, status: Type.Enum(['PENDING', 'PROCESSING']) },
  { description: 'The upload is stored and its rows wait for the worker; follow GET /customers/bulk/jobs/{jobId}' },
);

const ErrorEntrySchema = Type.Object(
  {
    correlationId: Type.String({ description: "The row's platformCustomerId, or row_<n> (n counts data rows from 1, the header excluded)" }),
    code: Type.String({ description: 'INVALID_INPUT (the row fails POST /customers validation), CONFLICT or UMA_ADDRESS_EXISTS (a clash with an active customer), INVALID_CSV_FORMAT' }),
    message: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'row: the row number; errors: one {field, message} per invalid CSV column' })),
  },
  { description: 'A row that was not imported' },
);

export const BulkImportJobSchema = Type.Object(
  {
    id: JobId,
    status: Type.Enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'], { description: 'FAILED when the CSV could not be read or no row was imported; COMPLETED otherwise, failed rows in errors' }),
    progress: Type.Object({
      total: Type.Integer({ description: 'Data rows in the CSV' }),
      processed: Type.Integer(),
      successful: Type.Integer({ description: 'Customers created' }),
      failed: Type.Integer(),
    }),
    errors: Type.Optional(Type.Array(ErrorEntrySchema, { description: 'One entry per row not imported, in row order' })),
    completedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Only once COMPLETED or FAILED' })),
  },
  { description: 'A bulk customer import and its progress' },
);

export const BulkCsvBody = Type.Object(
  { file: Type.String({ format: 'binary', description: 'The CSV (UTF-8, a header row, quoted fields, CRLF or LF), at most BULK_IMPORT_MAX_BYTES' }) },
  { additionalProperties: false, description: 'multipart/form-data with the CSV in `file`' },
);

