import { Client } from 'minio';
import { presignedQueryRefusal } from './presigned-query';

const SIGNED_AT = new Date('2026-11-29T03:15:00Z');

/** The query of a link as the platform issues it (`ObjectStorage.presignGet`: the minio client, SigV4). */
async function issuedQuery(downloadName?: string): Promise<string> {
  const client = new Client({ endPoint: 'storage.example', port: 9000, useSSL: false, accessKey: 'results-reader', secretKey: 'secret-key-of-test', region: 'us-east-1' });
  const headers: Record<string, string> = downloadName ? { 'response-content-disposition': `attachment; filename="${downloadName}"` } : {};
  return new URL(await client.presignedGetObject('cp-outputs', '1/44/outputs/a.png', 900, headers, SIGNED_AT)).search;
}

describe('presignedQueryRefusal', () => {
  const now = SIGNED_AT.getTime() + 60_000;

  it('accepts the links the platform issues, with and without a download name, until they expire', async () => {
    for (const query of [await issuedQuery(), await issuedQuery('spring.png')]) {
      expect(presignedQueryRefusal(query, now)).toBeNull();
      expect(presignedQueryRefusal(query, SIGNED_AT.getTime() + 900_000)).toBeNull();
      expect(presignedQueryRefusal(query, SIGNED_AT.getTime() + 900_001)).toBe('link expired or dated ahead');
      // a signing service whose clock runs a little ahead
      expect(presignedQueryRefusal(query, SIGNED_AT.getTime() - 4 * 60_000)).toBeNull();
      expect(presignedQueryRefusal(query, SIGNED_AT.getTime() - 6 * 60_000)).toBe('link expired or dated ahead');
    }
  });

  it('refuses what is not a presigned read, and every override or subresource added to one', async () => {
    const issued = await issuedQuery('spring.png');
    const edited = (edit: (params: URLSearchParams) => void): string => {
      const params = new URLSearchParams(issued);
      edit(params);
      return `?${params.toString()}`;
    };
    const cases: Array<[string, string]> = [
      ['', 'query parameter X-Amz-Algorithm missing'],
      ['?acl', 'query parameter acl is not one of a presigned read'],
      [`${issued}&acl`, 'query parameter acl is not one of a presigned read'],
      [`${issued}&response-content-type=text%2Fhtml`, 'query parameter response-content-type is not one of a presigned read'],
      [`${issued}&X-Amz-Expires=60`, 'query parameter X-Amz-Expires twice'],
      [edited((params) => params.delete('X-Amz-Signature')), 'query parameter X-Amz-Signature missing'],
      [edited((params) => params.set('response-content-disposition', 'inline')), 'download disposition is not an attachment'],
      [edited((params) => params.set('X-Amz-Signature', '0'.repeat(63))), 'signature is not 64 hexadecimal digits'],
      [edited((params) => params.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA1')), 'not a SigV4 presigned read signed for its Host'],
      [edited((params) => params.set('X-Amz-SignedHeaders', 'host;range')), 'not a SigV4 presigned read signed for its Host'],
      [edited((params) => params.set('X-Amz-Date', '20261131T031500Z')), 'date or credential scope malformed'],
      [edited((params) => params.set('X-Amz-Credential', 'results-reader/20261128/us-east-1/s3/aws4_request')), 'date or credential scope malformed'],
      [edited((params) => params.set('X-Amz-Credential', '/20261129/us-east-1/s3/aws4_request')), 'date or credential scope malformed'],
      [edited((params) => params.set('X-Amz-Expires', '604801')), 'expiry malformed'],
      [edited((params) => params.set('X-Amz-Expires', '09')), 'expiry malformed'],
    ];
    for (const [query, refusal] of cases) {
      expect([query, presignedQueryRefusal(query, now)]).toEqual([query, refusal]);
    }
  });
});
