import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AI_DETECTION_FILE_NAME_PATTERN } from './ai-detection-orders';
import { ANTI_AI_FILE_NAME_PATTERN } from './anti-ai-orders';
import { EMBED_FILE_NAME_PATTERN } from './embed-orders';
import { CreateV2EmbedOrderDto, V2_FILE_FORMATS, v2FileFormatOf } from './v2';

describe('v2 embed order body', () => {
  const errors = (fileName: string, extra: Record<string, unknown> = {}): string[] =>
    validateSync(plainToInstance(CreateV2EmbedOrderDto, { idempotencyKey: 'k', files: [{ fileName, watermarks: [{ text: 'x' }], ...extra }] }), {
      whitelist: true,
      forbidNonWhitelisted: true,
    }).map((error) => error.property);

  it('takes the v2 formats and keeps the v3 rules it inherits', () => {
    expect(errors('a.tiff')).toEqual([]);
    expect(errors('a.PDF')).toEqual([]);
    expect(errors('a.tif')).toEqual(['files']);
    expect(errors('a.gif')).toEqual(['files']);
    expect(errors('a.png', { originalFileUrl: 'https://127.0.0.1/a.png' })).toEqual(['files']);
    expect(errors('a.png', { watermarks: [] })).toEqual(['files']);
  });
});

describe('fileFormat of the v2 creation shape', () => {
  // Every extension some creation endpoint answering the v2 file shape accepts (embed, anti-AI, AI detection).
  const accepted = (pattern: RegExp): string[] => pattern.source.replace(/^.*\\\.\(/, '').replace(/\)\$$/, '').split('|');

  it('names the format a file was given as, never another one', () => {
    const expected: Record<string, string> = { jpg: 'JPG', jpeg: 'JPG', png: 'PNG', webp: 'WEBP', bmp: 'BMP', tif: 'TIFF', tiff: 'TIFF', pdf: 'PDF', gif: 'GIF', avif: 'AVIF' };
    for (const extension of new Set([EMBED_FILE_NAME_PATTERN, ANTI_AI_FILE_NAME_PATTERN, AI_DETECTION_FILE_NAME_PATTERN].flatMap(accepted))) {
      expect([extension, v2FileFormatOf(`photo.${extension.toUpperCase()}`)]).toEqual([extension, expected[extension]]);
      expect(V2_FILE_FORMATS).toContain(v2FileFormatOf(`photo.${extension}`));
    }
  });
});
