import { ErrorCode, RpcErrorBody } from '@cp/contracts';
import { Logger } from '@nestjs/common';
import { NatsOptions, OutgoingResponse, ServerNats } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer';
import type { MsgHdrs, NatsConnection } from 'nats';

/** Room kept for the reply's headers (a `traceparent` and the like) within the server's `max_payload`. */
const HEADER_ROOM_BYTES = 4096;

const logger = new Logger('RpcServer');

/**
 * Nest's NATS reply serializer, bounded: a reply that cannot fit in one NATS message (the server's `max_payload`,
 * 1 MiB by default) would fail to publish inside Nest's transport, and its caller would wait out its whole timeout
 * for a 503 that says nothing. It is answered `SERVER_INTERNAL_ERROR` at once instead, and logged with its size.
 * The views the services answer are bounded by their rules so this does not happen (e.g. `EMBED_TEXTS_MAX_BYTES`);
 * this is the guard for a view nobody measured.
 */
export class BoundedReplySerializer {
  private readonly records = new NatsRecordSerializer();

  constructor(private readonly maxPayload: () => number | undefined) {}

  serialize(packet: OutgoingResponse): { data: Uint8Array; headers?: MsgHdrs } {
    const record = this.records.serialize(packet) as { data: Uint8Array; headers?: MsgHdrs };
    const limit = this.maxPayload();
    if (limit === undefined || record.data.length <= limit - HEADER_ROOM_BYTES) {
      return record;
    }
    logger.error({ bytes: record.data.length, maxPayload: limit }, 'reply larger than a NATS message: answered SERVER_INTERNAL_ERROR');
    const refused: RpcErrorBody = { code: ErrorCode.SERVER_INTERNAL_ERROR };
    return this.records.serialize({ id: packet.id, err: refused, isDisposed: true }) as { data: Uint8Array; headers?: MsgHdrs };
  }
}

/** The services' NATS request/reply server: Nest's, with replies bounded by the connection's `max_payload`. */
export function createRpcServer(options: Required<NatsOptions>['options']): ServerNats {
  let server: ServerNats | undefined = undefined;
  const serializer = new BoundedReplySerializer(() => server?.unwrap<NatsConnection>().info?.max_payload);
  server = new ServerNats({ ...options, serializer });
  return server;
}
