import { Clock, ExpiringMap } from '@cp/clock';
import { TestUploadView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';

/** A token is remembered this long: the longest a test-upload token is valid (v2 refresh-urls' 1 hour). */
export const RECORDED_UPLOAD_TTL_MS = 3_600_000;
/** Bound on remembered tokens (the oldest are dropped first; a dropped token's replay costs one RPC again). */
export const RECORDED_UPLOAD_MAX_ENTRIES = 10_000;

/**
 * Test-upload tokens whose upload this replica has recorded, with the answer it gave. A token stays valid for its
 * 900 s (a URL cannot be withdrawn), so without this every replay of it streamed another body of up to 256 MiB and
 * cost an RPC and a database transaction; now a replay is answered from here, without reading its body.
 */
@Injectable()
export class RecordedTestUploads {
  private readonly byToken: ExpiringMap<string, TestUploadView>;

  constructor(clock: Clock) {
    this.byToken = new ExpiringMap(clock, RECORDED_UPLOAD_MAX_ENTRIES);
  }

  find(token: string): TestUploadView | null {
    return this.byToken.get(token) ?? null;
  }

  remember(token: string, view: TestUploadView): void {
    this.byToken.set(token, view, RECORDED_UPLOAD_TTL_MS);
  }

  get size(): number {
    return this.byToken.size;
  }
}
