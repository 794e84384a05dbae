import type { FieldError } from '../shared/errors.js';

/** The file types a document may be (the interface: PDF, JPEG or PNG), each known by its first bytes. */
const SIGNATURES: { contentType: string; magic: number[]; extensions: string[] }[] = [
  { contentType: 'application/pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d], extensions: ['pdf'] },
  { contentType: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], extensions: ['png'] },
  { contentType: 'image/jpeg', magic: [0xff, 0xd8, 0xff], extensions: ['jpg', 'jpeg'] },
];

export const DOCUMENT_CONTENT_TYPES = SIGNATURES.map((s) => s.contentType);

/** An uploaded file as the HTTP layer read it: the name and type the client declared, and the bytes. */
export interface UploadedFile {
  fileName: string;
  declaredType: string;
  bytes: Buffer;
}

/** The content type the bytes themselves show, if it is one a document may have. */
export function sniffContentType(bytes: Buffer): string | undefined {
  return SIGNATURES.find((s) => bytes.length >= s.magic.length && s.magic.every((b, i) => bytes[i] === b))?.contentType;
}

/** What the client claimed: a known declared type, else the file name's extension; undefined when it claimed none of ours. */
function claimedContentType(file: UploadedFile): string | undefined {
  const declared = SIGNATURES.find((s) => s.contentType === file.declaredType.toLowerCase() || (s.contentType === 'image/jpeg' && file.declaredType.toLowerCase() === 'image/jpg'));
  if (declared) return declared.contentType;
  const extension = /\.([A-Za-z0-9]+)$/.exec(file.fileName)?.[1]?.toLowerCase();
  return SIGNATURES.find((s) => extension !== undefined && s.extensions.includes(extension))?.contentType;
}

/** The 400 entries for a file that is empty, not a PDF, PNG or JPEG by its bytes, or not what its type or name claims. */
export function fileErrors(file: UploadedFile, field = 'file'): FieldError[] {
  if (file.bytes.length === 0) return [{ field, message: 'is empty' }];
  const actual = sniffContentType(file.bytes);
  if (!actual) return [{ field, message: 'is not a PDF, PNG or JPEG file (checked by its content)' }];
  const claimed = claimedContentType(file);
  if (claimed && claimed !== actual) return [{ field, message: `claims to be ${claimed} but its content is ${actual}` }];
  return [];
}
