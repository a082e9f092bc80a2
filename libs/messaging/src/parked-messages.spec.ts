// Which parked messages an erasure discards: those whose payload names the erased account (or order) by id or by an
// object key under its prefix, at any depth; not another account's whose id shares its digits.
import { namesScope } from './parked-messages';

describe('namesScope', () => {
  const embedJob = (accountId: string, orderId: string) => ({
    eventId: 'e1',
    subject: 'job.watermark.embed',
    data: { orderId, accountId, text: 'Jane Doe', input: { bucket: 'cp-inputs', key: `${accountId}/${orderId}/inputs/1/Jane Doe.png` } },
  });

  it("matches an account's job by its accountId and not an account whose id shares its digits", () => {
    expect(namesScope(embedJob('55', '7'), { accountId: '55' })).toBe(true);
    expect(namesScope(embedJob('550', '7'), { accountId: '55' })).toBe(false);
    expect(namesScope(embedJob('5', '7'), { accountId: '55' })).toBe(false);
  });

  it('matches a payload naming only object keys (a package job) by the prefix, for the account and for the order', () => {
    const packageJob = { data: { orderId: '9', entries: [{ key: '55/9/outputs/1-1/Jane Doe.png', name: 'Jane Doe.png' }] } };
    expect(namesScope({ data: { entries: packageJob.data.entries } }, { accountId: '55' })).toBe(true);
    expect(namesScope(packageJob, { accountId: '55', orderId: '9' })).toBe(true);
    expect(namesScope(packageJob, { accountId: '55', orderId: '90' })).toBe(false);
  });

  it("matches an order's messages by its orderId only, not its siblings'", () => {
    expect(namesScope(embedJob('55', '7'), { accountId: '55', orderId: '7' })).toBe(true);
    expect(namesScope(embedJob('55', '8'), { accountId: '55', orderId: '7' })).toBe(false);
    // An accountId alone does not name an order.
    expect(namesScope({ data: { accountId: '55' } }, { accountId: '55', orderId: '7' })).toBe(false);
  });

  it("does not take another account's text or file name that begins with the prefix for an object key", () => {
    const text = { data: { accountId: '12', orderId: '40', text: '7/11 receipts', input: { bucket: 'cp-inputs', key: '12/40/inputs/1/7/11.png', fileName: '7/11.png' } } };
    expect(namesScope(text, { accountId: '7' })).toBe(false);
    expect(namesScope({ data: { keys: ['7/3/outputs/1-1/a.png'] } }, { accountId: '7' })).toBe(true);
  });

  it("matches a storage notification (parked by uploads-storage-events) by its record's key, which MinIO percent-encodes", () => {
    // As MinIO sends it: `Key` is the bucket and the key, the record's key is encoded; the record has the uploader's IP.
    const notification = (key: string) => ({
      EventName: 's3:ObjectCreated:Put',
      Key: `cp-inputs/${key}`,
      Records: [{ eventName: 's3:ObjectCreated:Put', requestParameters: { sourceIPAddress: '203.0.113.7' }, s3: { bucket: { name: 'cp-inputs' }, object: { key: encodeURIComponent(key).replace(/%20/g, '+'), size: 3 } } }],
    });
    expect(namesScope(notification('55/9/inputs/1/Jane Doe.png'), { accountId: '55' })).toBe(true);
    expect(namesScope(notification('55/9/inputs/1/Jane Doe.png'), { accountId: '55', orderId: '9' })).toBe(true);
    expect(namesScope(notification('550/9/inputs/1/Jane Doe.png'), { accountId: '55' })).toBe(false);
    expect(namesScope(notification('55/90/inputs/1/Jane Doe.png'), { accountId: '55', orderId: '9' })).toBe(false);
  });

  it('walks a body nested deeper than the stack (one such parked message would fail every discard for its 30 days)', () => {
    const nested = (depth: number, leaf: unknown): unknown => JSON.parse(`${'{"a":['.repeat(depth)}${JSON.stringify(leaf)}${']}'.repeat(depth)}`);
    expect(namesScope(nested(100_000, { accountId: '55' }), { accountId: '55' })).toBe(true);
    expect(namesScope(nested(100_000, { accountId: '550' }), { accountId: '55' })).toBe(false);
  });

  it('matches nothing in a body that is not JSON or names no id', () => {
    expect(namesScope(null, { accountId: '55' })).toBe(false);
    expect(namesScope({ data: { accountId: 55, note: 'account 55' } }, { accountId: '55' })).toBe(false);
  });
});
