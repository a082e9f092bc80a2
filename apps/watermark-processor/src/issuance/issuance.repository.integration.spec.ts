// The issuance registry against real PostgreSQL (the processor's own migrations): candidate tracing's lookup of the
// recipients of one original (issue 36), and the payload scheme (scrambled since issue 36, the id before).
import { asTransaction, ErasedScopesRepository, openServiceDatabase } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { issuedPayload } from '@cp/watermark';
import { DataSource } from 'typeorm';
import { WATERMARK_ENTITIES } from '../database/entities';
import { WATERMARK_MIGRATIONS } from '../database/migrations';
import { IssuanceEntity } from './issuance.entity';
import { IssuanceRepository, payloadOf } from './issuance.repository';

describe('IssuanceRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_issuance');
  let dataSource: DataSource;
  let issuances: IssuanceRepository;
  let output = 0;

  const issue = async (accountId: string, inputKey: string | undefined, sha: string | null, extra: { algorithm?: 'v2' | 'v3'; scrambled?: boolean } = {}): Promise<IssuanceEntity> => {
    output += 1;
    const made = await dataSource.transaction((tx) =>
      issuances.findOrCreate(asTransaction(tx), {
        accountId,
        orderId: String(500 + output),
        outputFileId: `${500 + output}-1`,
        watermarkText: `recipient ${output}`,
        algorithm: extra.algorithm ?? 'v3',
        ...(inputKey ? { inputKey } : {}),
        scrambled: extra.scrambled ?? true,
      }),
    );
    if (sha) await issuances.recordInputHash(made.id, sha);
    return made;
  };

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...WATERMARK_ENTITIES, ...MESSAGING_ENTITIES], migrations: WATERMARK_MIGRATIONS, applicationName: 'it-issuance' });
    issuances = new IssuanceRepository(dataSource, new ErasedScopesRepository());
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('finds every recipient of the same original for the same account: same bytes in any order, or the same input object', async () => {
    const sha = 'a'.repeat(64);
    const sameBytes = [await issue('7', '7/1/inputs/1/photo.png', sha), await issue('7', '7/2/inputs/9/copy.png', sha)];
    const sameObject = await issue('7', '7/3/inputs/4/photo.png', null);
    const otherAccount = await issue('8', '8/1/inputs/1/photo.png', sha);
    const otherPicture = await issue('7', '7/4/inputs/1/other.png', 'b'.repeat(64));
    const v2 = await issue('7', '7/5/inputs/1/photo.png', sha, { algorithm: 'v2' });
    const found = await issuances.findCandidates({ accountId: '7', algorithm: 'v3', inputKey: '7/3/inputs/4/photo.png', inputSha256: sha });
    expect(found.map((i) => i.id).sort()).toEqual([...sameBytes, sameObject].map((i) => i.id).sort());
    // newest first
    expect(found.map((i) => Number(i.id))).toEqual([...found.map((i) => Number(i.id))].sort((a, b) => b - a));
    for (const excluded of [otherAccount, otherPicture, v2]) expect(found.map((i) => i.id)).not.toContain(excluded.id);
  });

  it('records the input hash once (a retry keeps the first)', async () => {
    const made = await issue('9', '9/1/inputs/1/a.png', 'c'.repeat(64));
    await issuances.recordInputHash(made.id, 'd'.repeat(64));
    const row = await dataSource.manager.findOneByOrFail(IssuanceEntity, { id: made.id });
    expect([row.inputSha256, row.inputKey, row.scrambled]).toEqual(['c'.repeat(64), '9/1/inputs/1/a.png', true]);
  });

  it('resolves a scrambled payload to its issuance and an older mark to the issuance whose id it is, never the other way', async () => {
    const scrambled = await issue('10', undefined, null);
    const legacy = await issue('10', undefined, null, { scrambled: false });
    expect(payloadOf(scrambled)).toBe(issuedPayload(BigInt(scrambled.id)));
    expect(payloadOf(legacy)).toBe(BigInt(legacy.id));
    expect((await issuances.findByPayload(payloadOf(scrambled), 'v3')).map((i) => i.id)).toEqual([scrambled.id]);
    expect((await issuances.findByPayload(payloadOf(legacy), 'v3')).map((i) => i.id)).toEqual([legacy.id]);
    // the scrambled issuance's id read as an old unscrambled mark, and the legacy id scrambled: nothing
    expect(await issuances.findByPayload(BigInt(scrambled.id), 'v3')).toEqual([]);
    expect(await issuances.findByPayload(issuedPayload(BigInt(legacy.id)), 'v3')).toEqual([]);
    expect(await issuances.findByPayload(0n, 'v3')).toEqual([]);
  });
});
