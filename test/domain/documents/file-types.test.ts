import { describe, expect, it } from 'vitest';
import { fileErrors, sniffContentType } from '../../../src/domain/documents/file-types.js';
import { FILES } from '../../helpers/multipart.js';

describe('document file types: known by their first bytes', () => {
  it('recognizes PDF, PNG and JPEG by content, and nothing else', () => {
    expect([sniffContentType(FILES.pdf()), sniffContentType(FILES.png()), sniffContentType(FILES.jpeg())]).toEqual(['application/pdf', 'image/png', 'image/jpeg']);
    for (const other of [Buffer.from('GIF89a'), Buffer.from('%PD'), Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(0), Buffer.from('<svg/>')]) expect(sniffContentType(other)).toBeUndefined();
  });

  it('accepts a file whose declared type or name agrees with its content, or claims none of the three', () => {
    expect(fileErrors({ fileName: 'a.PNG', declaredType: 'image/png', bytes: FILES.png() })).toEqual([]);
    expect(fileErrors({ fileName: 'scan', declaredType: 'application/octet-stream', bytes: FILES.jpeg() })).toEqual([]);
    expect(fileErrors({ fileName: 'photo.jpeg', declaredType: 'image/jpg', bytes: FILES.jpeg() })).toEqual([]);
  });

  it('names the file field for a type or extension its content contradicts, an empty file, or unknown content', () => {
    const cases = [
      { fileName: 'a.png', declaredType: 'application/octet-stream', bytes: FILES.pdf() },
      { fileName: 'a.bin', declaredType: 'application/pdf', bytes: FILES.png() },
      { fileName: 'a.pdf', declaredType: 'application/pdf', bytes: Buffer.alloc(0) },
      { fileName: 'a.gif', declaredType: 'image/gif', bytes: Buffer.from('GIF89a....') },
    ];
    for (const file of cases) expect(fileErrors(file).map((e) => e.field), file.fileName).toEqual(['file']);
  });
});
