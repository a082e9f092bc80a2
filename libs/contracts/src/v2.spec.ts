import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateV2EmbedOrderDto } from './v2';

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
