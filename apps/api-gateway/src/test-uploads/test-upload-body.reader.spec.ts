import { DomainException, ErrorCode } from '@cp/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { readTestUploadBody } from './test-upload-body.reader';

/** A request stream with the few fields the reader uses, and a response that only records headers. */
function exchange(headers: Record<string, string>): { request: IncomingMessage & PassThrough; response: ServerResponse; headers: Map<string, string> } {
  const request = Object.assign(new PassThrough(), { headers, complete: false, socket: { destroySoon: () => undefined } }) as unknown as IncomingMessage & PassThrough;
  request.on('end', () => Object.assign(request, { complete: true }));
  const set = new Map<string, string>();
  const response = { setHeader: (name: string, value: string) => set.set(name, value) } as unknown as ServerResponse;
  return { request, response, headers: set };
}

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'passed'> {
  try {
    await promise;
    return 'passed';
  } catch (error) {
    return error instanceof DomainException ? error.code : ErrorCode.SERVER_INTERNAL_ERROR;
  }
}

describe('readTestUploadBody', () => {
  it('counts a body up to the limit (inclusive)', async () => {
    const { request, response, headers } = exchange({});
    const size = readTestUploadBody(request, response, 10);
    request.end(Buffer.alloc(10));
    expect(await size).toBe(10);
    expect(headers.get('Connection')).toBeUndefined();
  });

  it('a declared Content-Length over the limit: PAYLOAD_TOO_LARGE before anything is read, Connection: close', async () => {
    const { request, response, headers } = exchange({ 'content-length': '11' });
    request.write(Buffer.alloc(11));
    expect(await codeOf(readTestUploadBody(request, response, 10))).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(headers.get('Connection')).toBe('close');
    expect(request.destroyed).toBe(false);
  });

  it('a body crossing the limit while streaming: PAYLOAD_TOO_LARGE, the request is not destroyed (the 413 must still go out)', async () => {
    const { request, response, headers } = exchange({});
    const size = readTestUploadBody(request, response, 10);
    request.write(Buffer.alloc(6));
    request.write(Buffer.alloc(6));
    expect(await codeOf(size)).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(headers.get('Connection')).toBe('close');
    expect(request.destroyed).toBe(false);
  });

  it('a client that goes away mid-body is its own fault (VALIDATION_FAILED), never a hang', async () => {
    const { request, response } = exchange({});
    const size = readTestUploadBody(request, response, 10);
    request.write(Buffer.alloc(3));
    request.destroy();
    expect(await codeOf(size)).toBe(ErrorCode.VALIDATION_FAILED);
  });
});
