import { DomainException, ErrorCode } from '@cp/contracts';
import { OPT_OUT_RESPONSE_HEADERS, RESULTS_ROUTE } from '@cp/storage';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiTokenRouteErrors } from '../http/api-responses.decorator';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/error-response';
import { RelaySlots } from './relay-slots';
import { RelayedObject, StorageRelay, StorageRelayError } from './storage-relay';

/**
 * The result file a relay reads, whatever the presigned query and however its path is percent-encoded (storage
 * decodes it, so `a` and `%61` name one object and share its cap).
 */
export function objectOf(pathAndQuery: string): string {
  return (pathAndQuery.split('?')[0] ?? '')
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** Headers of the stored object passed on to the client. */
const RELAYED_HEADERS = ['content-type', 'content-length', 'content-disposition', 'etag', 'last-modified'];

/**
 * A stored file is served from the API's own origin: whatever its bytes or declared type, a browser must not
 * sniff it into something else nor run it as a page there.
 */
const FILE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

/**
 * Anti-AI result files (docs/anti-ai.md): the URLs handed out for them point here, so that the file is served
 * with `X-Robots-Tag: noai, noimageai` and `tdm-reservation: 1`, which presigned storage URLs cannot carry.
 */
@ApiTags('downloads')
@Controller(RESULTS_ROUTE.slice(1))
export class ResultsController {
  constructor(
    private readonly relay: StorageRelay,
    private readonly slots: RelaySlots,
  ) {}

  @Get(':bucket/*key')
  @ApiOperation({
    operationId: 'getResultFile',
    summary: 'A result file served with the AI training opt-out headers',
    description:
      'The `downloadUrl`, `files[].downloadUrl` and `archiveUrl` of anti-AI orders point here. No Authorization header: the presigned query in the URL authorizes the read and expires with it. An expired, altered or unknown link is 404 `RESOURCE_NOT_FOUND`. Downloads at once are capped: of one file (429 `RATE_LIMIT_EXCEEDED`) and in total (503 `WATERMARK_V2_UNAVAILABLE`), both with `Retry-After`. The opt-out headers travel with this download only: a copy published elsewhere carries the headers of the server that publishes it, and crawlers may ignore them (docs/anti-ai.md).',
    security: [],
  })
  @ApiParam({ name: 'bucket', schema: { type: 'string' }, example: 'cp-outputs' })
  @ApiParam({ name: 'key', schema: { type: 'string' }, example: '1/44/outputs/1001-1/spring-watermarked-1001-1.png' })
  @ApiProduces('application/octet-stream')
  @ApiResponse({ status: 200, description: 'the file, with `X-Robots-Tag: noai, noimageai` and `tdm-reservation: 1`', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } })
  @ApiTokenRouteErrors(ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.RATE_LIMIT_EXCEEDED)
  async get(@Req() request: Request, @Res() response: Response): Promise<void> {
    // The raw path and query as sent: only they are passed to the relay, which joins them to storage's fixed origin.
    const pathAndQuery = request.originalUrl.slice(RESULTS_ROUTE.length);
    const slot = this.slots.take(objectOf(pathAndQuery));
    if (typeof slot === 'string') {
      // Slots come back as downloads end; a few seconds is the same wait as any other 503's.
      response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      throw new DomainException(slot === 'object-busy' ? ErrorCode.RATE_LIMIT_EXCEEDED : ErrorCode.WATERMARK_V2_UNAVAILABLE, `result relay: ${slot}`);
    }
    // The slot is held for as long as storage is: until the relay's request and the download have ended, however.
    // A client that leaves ends the request to storage at once ('close' also comes after a finished answer: nothing
    // is left to end then).
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    try {
      await this.relayed(pathAndQuery, response, gone.signal);
    } finally {
      slot();
    }
  }

  private async relayed(pathAndQuery: string, response: Response, signal: AbortSignal): Promise<void> {
    let upstream: RelayedObject;
    try {
      upstream = await this.relay.open(pathAndQuery, signal);
    } catch (error) {
      if (error instanceof StorageRelayError && error.reason === 'storage-unavailable') {
        throw new DomainException(ErrorCode.WATERMARK_V2_UNAVAILABLE, error.message);
      }
      // A refused path, an expired or altered signature, or no such object: storage's own answer is not passed on.
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, error instanceof Error ? error.message : String(error));
    }
    response.status(200);
    for (const name of RELAYED_HEADERS) {
      const value = upstream.headers[name];
      if (typeof value === 'string') {
        response.setHeader(name, value);
      }
    }
    for (const [name, value] of Object.entries({ ...OPT_OUT_RESPONSE_HEADERS, ...FILE_RESPONSE_HEADERS })) {
      response.setHeader(name, value);
    }
    try {
      await pipeline(upstream.body, response);
    } catch {
      // The status line is sent: a download cut short (storage failed, deadline or cap) can only end the connection.
      response.destroy();
    }
  }
}
