import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateAntiAiOrderDto } from './anti-ai-orders';
import { CreateEmbedOrderDto } from './embed-orders';
import { CreateExtractOrderDto } from './extract-orders';
import { OBJECT_NAME_MAX_BYTES, outputFileName, packageFileName, safeObjectName } from './object-keys';
import { isCalendarDate, isCalendarDateOrDateTime, isHttpsUrl, isPermittedHttpsUrl, isPrivateAddress, isPublicHttpsUrl } from './validators';
import { CreateWebhookCommand, UpdateWebhookCommand } from './webhooks';

describe('public URL rules', () => {
  it.each([
    ['https://images.example.com/a.jpg', true],
    ['https://8.8.8.8/a.jpg', true],
    ['http://images.example.com/a.jpg', false],
    ['https://user:pass@images.example.com/a.jpg', false],
    ['https://localhost/a.jpg', false],
    ['https://printer.local/a.jpg', false],
    // a trailing dot names the same host (a fully qualified name): refused alike
    ['https://localhost./a.jpg', false],
    ['https://foo.internal./a.jpg', false],
    ['https://foo.local../a.jpg', false],
    ['https://metadata.google.internal./computeMetadata', false],
    ['https://orders.default.svc/a.jpg', false],
    ['https://images.example.com./a.jpg', true],
    // names under no public ICANN suffix resolve only inside the operator's network: a namespace-qualified cluster
    // service, a company or home zone, the reserved test names; public suffixes of any depth and IDN TLDs pass
    ['https://minio.minio-system/a.jpg', false],
    ['https://orders.default/a.jpg', false],
    ['https://files.corp/a.jpg', false],
    ['https://nas.lan./a.jpg', false],
    ['https://router.home.arpa/a.jpg', false],
    ['https://cdn.example/a.jpg', false],
    ['https://images.test/a.jpg', false],
    ['https://a.b.co.uk/a.jpg', true],
    ['https://someone.github.io/a.jpg', true],
    ['https://пример.рф/a.jpg', true],
    ['https://shop.app/a.jpg', true],
    ['https://127.0.0.1/a.jpg', false],
    ['https://10.1.2.3/a.jpg', false],
    ['https://172.20.0.1/a.jpg', false],
    ['https://192.168.1.1/a.jpg', false],
    ['https://169.254.169.254/latest/meta-data', false],
    ['https://[::1]/a.jpg', false],
    ['https://[fd00::1]/a.jpg', false],
    // IPv4-mapped and other IPv6 spellings of private IPv4 addresses (WHATWG URL turns [::ffff:127.0.0.1] into [::ffff:7f00:1]).
    ['https://[::ffff:127.0.0.1]/a.jpg', false],
    ['https://[::ffff:7f00:1]/a.jpg', false],
    ['https://[::ffff:a9fe:a9fe]/latest', false],
    ['https://[::127.0.0.1]/a.jpg', false],
    ['https://[64:ff9b::a9fe:a9fe]/a.jpg', false],
    ['https://[2002:7f00:1::]/a.jpg', false],
    ['https://[fe80::1%25eth0]/a.jpg', false],
    ['https://2130706433/a.jpg', false],
    ['https://0x7f.1/a.jpg', false],
    ['https://[::ffff:8.8.8.8]/a.jpg', true],
    ['https://[2606:4700::1111]/a.jpg', true],
    ['ftp://example.com/a.jpg', false],
    ['not a url', false],
    // port 0: nothing listens there, every fetch would fail after the order was accepted
    ['https://images.example.com:0/a.jpg', false],
    ['https://images.example.com:8443/a.jpg', true],
  ])('%s → %s', (url, expected) => {
    expect(isPublicHttpsUrl(url)).toBe(expected);
  });

  it('refuses port 0 in the shape check too (webhook URLs, zero-copy targets)', () => {
    expect([isHttpsUrl('https://127.0.0.1:0/hook'), isHttpsUrl('https://127.0.0.1:9443/hook')]).toEqual([false, true]);
    expect(isPermittedHttpsUrl('https://127.0.0.1:0/b/k.png', ['127.0.0.1'])).toBe(false);
  });

  it('zero-copy targets: public HTTPS up to the 4,096 characters the schema documents (a presigned URL with a session token), private only when allowed', () => {
    const longUrl = (length: number): string => {
      const base = 'https://bucket.s3.amazonaws.com/k.png?X-Amz-Security-Token=';
      return base + 'a'.repeat(length - base.length);
    };
    expect(isPermittedHttpsUrl(longUrl(3000), [])).toBe(true);
    expect(isPermittedHttpsUrl(longUrl(4096), [])).toBe(true);
    expect(isPermittedHttpsUrl(longUrl(4097), [])).toBe(false);
    expect(isPermittedHttpsUrl('https://127.0.0.1:9443/b/k.png', [])).toBe(false);
    expect(isPermittedHttpsUrl('https://127.0.0.1:9443/b/k.png', ['127.0.0.1'])).toBe(true);
    expect(isPermittedHttpsUrl('https://169.254.169.254/latest', [])).toBe(false);
    expect(isPermittedHttpsUrl('https://minio.minio-system/b/k.png', [])).toBe(false);
    expect(isPermittedHttpsUrl('http://example.com/k.png', [])).toBe(false);
    expect(isPermittedHttpsUrl('https://user:pw@example.com/k.png', [])).toBe(false);
  });

  it('classifies addresses', () => {
    expect(['127.0.0.1', '::1', '100.64.0.1', '::ffff:10.0.0.1', 'fe80::1', '0.0.0.0'].map(isPrivateAddress)).toEqual([true, true, true, true, true, true]);
    expect(['1.1.1.1', '2606:4700::1111'].map(isPrivateAddress)).toEqual([false, false]);
    expect(['::ffff:7f00:1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', '198.18.0.1', 'fd00:ec2::254', 'not an ip'].map(isPrivateAddress)).toEqual([true, true, true, true, true, true]);
  });
});

describe('embed order body', () => {
  const validate = (body: unknown): string[] =>
    validateSync(plainToInstance(CreateEmbedOrderDto, body), { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property);

  it('accepts a valid body and counts text length in characters, not UTF-16 units', () => {
    const emoji = '😀'.repeat(1000);
    expect(validate({ idempotencyKey: 'k', files: [{ fileName: 'A.JPEG', watermarks: [{ text: emoji }] }] })).toEqual([]);
    expect(validate({ idempotencyKey: 'k', files: [{ fileName: 'a.jpeg', watermarks: [{ text: `${emoji}😀` }] }] })).toEqual(['files']);
  });

  it('refuses path separators in file names', () => {
    expect(validate({ idempotencyKey: 'k', files: [{ fileName: '../a.png', watermarks: [{ text: 'x' }] }] })).toEqual(['files']);
  });
});

describe('object and file names', () => {
  it('names outputs and archives as the spec says', () => {
    expect(outputFileName('holiday.photo.jpg', '12-3')).toBe('holiday.photo-watermarked-12-3.jpg');
    expect(outputFileName('README', '1-1')).toBe('README-watermarked-1-1');
    expect(packageFileName('42')).toBe('42-watermarked.zip');
    expect(safeObjectName('a/b\\c\u0001.png')).toBe('a_b_c_.png');
  });

  it('keeps an object name within 255 bytes of UTF-8, at a character boundary, with its extension', () => {
    const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
    // the outside review's name: 130 characters, 508 bytes; every PUT to its upload URL failed
    const emoji = `${'🎉'.repeat(126)}.png`;
    expect(safeObjectName(emoji)).toBe(`${'🎉'.repeat(62)}.png`);
    expect(bytes(safeObjectName(emoji))).toBeLessThanOrEqual(OBJECT_NAME_MAX_BYTES);
    const korean = `${'한'.repeat(100)}.jpeg`;
    expect(safeObjectName(korean)).toBe(`${'한'.repeat(83)}.jpeg`);
    // an output name past 255 characters: its extension is kept (it was cut off with the old rule's 255 characters)
    const output = outputFileName(`${'é'.repeat(200)}.png`, '12-3');
    expect(safeObjectName(output)).toBe(`${'é'.repeat(125)}.png`);
    // names the old rule kept within 255 bytes are unchanged: objects stored before stay where they are looked for
    for (const name of ['a.png', `${'a'.repeat(251)}.png`, `${'한'.repeat(80)}.jpeg`, `${'a'.repeat(300)}.png`]) {
      expect(safeObjectName(name)).toBe(name.slice(0, 255));
    }
  });
});

describe('nested objects', () => {
  // class-validator validates each element of an array given where one object is expected, so an empty array
  // passed every rule of the object and reached the orders service (a 500 the API fuzzing found).
  it.each([
    ['file: []', { idempotencyKey: 'k', file: [] }],
    ['file: [{…}]', { idempotencyKey: 'k', file: [{ fileName: 'a.png', originalFile: { fileName: 'o.png' } }] }],
    ['originalFile: []', { idempotencyKey: 'k', file: { fileName: 'a.png', originalFile: [] } }],
  ])('an array where an object belongs is refused (%s)', (_case, body) => {
    expect(validateSync(plainToInstance(CreateExtractOrderDto, body))).not.toHaveLength(0);
  });

  it('the object itself passes', () => {
    expect(validateSync(plainToInstance(CreateExtractOrderDto, { idempotencyKey: 'k', file: { fileName: 'a.png', originalFile: { fileName: 'o.png' } } }))).toHaveLength(0);
  });
});

describe('calendar dates', () => {
  it.each(['2026-02-28', '2028-02-29', '2000-02-29', '2026-12-31', '2026-01-01', '0001-01-01', '0099-03-01'])('%s is a day of the calendar', (value) => {
    expect(isCalendarDate(value)).toBe(true);
    expect(isCalendarDateOrDateTime(value)).toBe(true);
  });

  // 2026-02-30 was the black-box find: Date rolls it over to March 2 without a word.
  it.each(['2026-02-30', '2026-02-29', '1900-02-29', '2025-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-32', '0000-00-00', '26-02-01', '2026-2-1', '2026-02-01 ', 'garbage', ''])('%j is not', (value) => {
    expect(isCalendarDate(value)).toBe(false);
    expect(isCalendarDateOrDateTime(value)).toBe(false);
  });

  it('is a string', () => {
    expect(isCalendarDate(20260201)).toBe(false);
    expect(isCalendarDate(new Date('2026-02-01'))).toBe(false);
    expect(isCalendarDateOrDateTime(null)).toBe(false);
  });

  it.each(['2026-02-28T23:59Z', '2026-02-28T00:00:00Z', '2026-02-28T23:59:59.999Z', '2028-02-29T12:00+09:00', '2026-02-28T12:00-23:59'])('date-time %s is in range', (value) => {
    expect(isCalendarDateOrDateTime(value)).toBe(true);
    expect(Number.isNaN(Date.parse(value))).toBe(false);
  });

  it.each(['2026-02-30T10:00Z', '2026-02-28T24:00Z', '2026-02-28T10:60Z', '2026-02-28T10:00:60Z', '2026-02-28T10:00+24:00', '2026-02-28T10:00+01:60', '2026-02-28T10:00', '2026-02-28T10Z', '2026-02-28T10:00:00.1234Z'])('date-time %s is not', (value) => {
    expect(isCalendarDateOrDateTime(value)).toBe(false);
  });
});

// Outside review: `"isActive": null` passed IsOptional and reached a NOT NULL column (500). The RPC command shares the
// body's rule, so the webhooks service refuses it too, whoever sends it.
describe('an optional field of a request is absent or a value, never null', () => {
  const command = (isActive: unknown): UpdateWebhookCommand =>
    plainToInstance(UpdateWebhookCommand, { caller: { accountId: '1', mode: 'live' }, webhookId: 7, name: 'cms', url: 'https://hooks.example.com/x', ...(isActive === undefined ? {} : { isActive }) });
  it.each([
    ['absent', undefined, 0],
    ['false', false, 0],
    ['null', null, 1],
    ['a string', 'false', 1],
  ] as const)('webhooks.update with isActive %s', (_label, isActive, errors) => {
    expect(validateSync(command(isActive), { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property)).toEqual(errors ? ['isActive'] : []);
  });
});

// Outside review: a webhook name of spaces only was stored as "" (trimmed by the service after validation). The RPC
// commands trim before their rules too, so the webhooks service refuses it whoever sends it.
describe('webhook names and URLs are trimmed before they are validated', () => {
  const caller = { accountId: '1', mode: 'live' };
  it.each([
    ['   ', ['name']],
    ['\u3000', ['name']],
    ['  cms  ', []],
  ] as const)('webhooks.create with name %j', (name, errors) => {
    const command = plainToInstance(CreateWebhookCommand, { caller, name, url: ' https://hooks.example.com/x ' });
    expect(validateSync(command, { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property)).toEqual(errors);
    expect({ name: command.name, url: command.url }).toEqual({ name: name.trim(), url: 'https://hooks.example.com/x' });
  });
});

// Outside review: an anti-AI orderName of spaces only was accepted and shown as the order's name.
describe('anti-AI orderName and rights are trimmed before they are validated', () => {
  it.each([
    ['   ', '  ', ['orderName', 'options']],
    ['  spring  ', ' © Studio ', []],
  ] as const)('orderName %j, rights %j', (orderName, rights, errors) => {
    const body = plainToInstance(CreateAntiAiOrderDto, { idempotencyKey: 'k1', orderName, options: { rights }, files: [{ fileName: 'a.jpg' }] });
    expect(validateSync(body, { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property)).toEqual(errors);
    expect({ orderName: body.orderName, rights: body.options?.rights }).toEqual({ orderName: orderName.trim(), rights: rights.trim() });
  });
});
