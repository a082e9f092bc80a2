// Real NATS: the RPC client (and the batcher over it) against a `@nestjs/microservices` NATS server built like the
// services' (validation pipe, `{ code }` errors), so the wire format both ends speak is checked, not assumed.
import { BatchResults, defineRpc, DomainException, ErrorCode } from '@cp/contracts';
import { testInfra, uniqueName } from '@cp/testing';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsInt, IsString, ValidateNested } from 'class-validator';
import { connect, JSONCodec, NatsConnection } from 'nats';
import { RpcBatcher } from './rpc-batcher';
import { RpcClient, RpcClientModule } from './rpc-client';
import { ANSWER_ALONE, answerEach, RpcHandler, RpcHandlers } from './rpc-server';
import { createRpcServer } from './rpc-server-transport';

class AddQuery {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;

  @IsString()
  label!: string;
}

class AddManyQuery {
  @ArrayMaxSize(8)
  @ValidateNested({ each: true })
  @Type(() => AddQuery)
  items!: AddQuery[];
}

const prefix = uniqueName('it_rpc');
const addMany = defineRpc<BatchResults<{ sum: number; label: string }>>()(`${prefix}.addMany`, AddManyQuery);
/** Sizes of the batches the server received. */
const batchSizes: number[] = [];
const add = defineRpc<{ sum: number; label: string }>()(`${prefix}.add`, AddQuery);
const refuse = defineRpc<never>()(`${prefix}.refuse`, AddQuery);
const crash = defineRpc<never>()(`${prefix}.crash`, AddQuery);
const slow = defineRpc<{ sum: number }>()(`${prefix}.slow`, AddQuery);
const nobody = defineRpc<never>()(`${prefix}.nobody`, AddQuery);
const huge = defineRpc<{ text: string }>()(`${prefix}.huge`, AddQuery);
const later = defineRpc<never>()(`${prefix}.later`, AddQuery);

@Controller()
@RpcHandlers()
class CalculatorController {
  @RpcHandler(add)
  async add(query: AddQuery): Promise<{ sum: number; label: string }> {
    return { sum: query.a + query.b, label: query.label };
  }

  @RpcHandler(addMany)
  addMany(query: AddManyQuery): Promise<BatchResults<{ sum: number; label: string }>> {
    batchSizes.push(query.items.length);
    return answerEach(query.items, async (item) => {
      if (item.label === 'refuse') {
        throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'no such thing');
      }
      if (item.label === 'crash') {
        throw new Error('internal detail that must not travel');
      }
      if (item.label === 'too large for the batch') {
        return ANSWER_ALONE;
      }
      return this.add(item);
    });
  }

  @RpcHandler(later)
  later(): Promise<never> {
    throw new DomainException(ErrorCode.RATE_LIMIT_EXCEEDED, 'not now', 42);
  }

  @RpcHandler(refuse)
  refuse(): Promise<never> {
    throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'no such thing');
  }

  @RpcHandler(crash)
  crash(): Promise<never> {
    throw new Error('internal detail that must not travel');
  }

  /** A reply of `a` MiB: over NATS's default `max_payload` (1 MiB) for `a` ≥ 1. */
  @RpcHandler(huge)
  async huge(query: AddQuery): Promise<{ text: string }> {
    return { text: 'x'.repeat(query.a * 1024 * 1024 - 100) };
  }

  @RpcHandler(slow)
  async slow(query: AddQuery): Promise<{ sum: number }> {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return { sum: query.a + query.b };
  }
}

@Module({ controllers: [CalculatorController] })
class CalculatorModule {}

describe('RpcClient (real NATS, Nest microservice on the other end)', () => {
  let server: INestMicroservice;
  let client: RpcClient;
  let closeClient: () => Promise<void>;

  beforeAll(async () => {
    server = (await Test.createTestingModule({ imports: [CalculatorModule] }).compile()).createNestMicroservice({
      strategy: createRpcServer({ servers: [testInfra.natsUrl], queue: prefix }),
    });
    await server.listen();
    const moduleRef = await Test.createTestingModule({ imports: [RpcClientModule.register(testInfra.natsUrl, prefix, 1000)] }).compile();
    client = moduleRef.get(RpcClient);
    closeClient = () => moduleRef.close();
  });

  afterAll(async () => {
    await closeClient();
    await server.close();
  });

  it('answers a request with the handler value, many at once', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => client.request(add, { a: i, b: 1000, label: `n${i}` })));
    expect(answers.map((answer) => answer.sum)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1000));
    expect(answers[7].label).toBe('n7');
  });

  it('turns a domain error into a DomainException with its code', async () => {
    await expect(client.request(refuse, { a: 1, b: 2, label: 'x' })).rejects.toMatchObject({ code: ErrorCode.RESOURCE_NOT_FOUND });
  });

  it('a refusal that says when to try again brings its seconds across; one that does not, none', async () => {
    await expect(client.request(later, { a: 1, b: 2, label: 'x' })).rejects.toMatchObject({ code: ErrorCode.RATE_LIMIT_EXCEEDED, retryAfterSeconds: 42 });
    const refused: unknown = await client.request(refuse, { a: 1, b: 2, label: 'x' }).catch((error: unknown) => error);
    expect((refused as DomainException).retryAfterSeconds).toBeUndefined();
  });

  it('a payload the handler refuses is VALIDATION_FAILED', async () => {
    const invalid = { a: 'one', b: 2, label: 'x' } as unknown as AddQuery;
    await expect(client.request(add, invalid)).rejects.toMatchObject({ code: ErrorCode.VALIDATION_FAILED });
  });

  it('an unexpected failure on the other side is SERVER_INTERNAL_ERROR without its message', async () => {
    const error: unknown = await client.request(crash, { a: 1, b: 2, label: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainException);
    expect((error as DomainException).code).toBe(ErrorCode.SERVER_INTERNAL_ERROR);
    expect(String((error as Error).message)).not.toContain('internal detail');
  });

  it('a reply too large for one NATS message is answered SERVER_INTERNAL_ERROR at once, not left to time out', async () => {
    await expect(client.request(huge, { a: 2, b: 0, label: 'x' }, 10_000)).rejects.toMatchObject({ code: ErrorCode.SERVER_INTERNAL_ERROR });
    // Half a MiB still travels.
    await expect(client.request(add, { a: 1, b: 1, label: 'y'.repeat(512 * 1024) })).resolves.toMatchObject({ sum: 2 });
  });

  it('nobody subscribed: 503 code once the short no-responders retry ends, without waiting for the timeout', async () => {
    const started = Date.now();
    await expect(client.request(nobody, { a: 1, b: 2, label: 'x' }, 10_000)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an answer later than the timeout is 503, and the late answer harms nothing after it', async () => {
    await expect(client.request(slow, { a: 1, b: 2, label: 'x' }, 300)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(client.request(add, { a: 2, b: 3, label: 'after' })).resolves.toEqual({ sum: 5, label: 'after' });
  });

  describe('RpcBatcher', () => {
    it('sends the requests of one event-loop turn as batches of at most maxItems, each caller getting its own answer', async () => {
      batchSizes.length = 0;
      const batcher = new RpcBatcher(client, addMany, add, 8);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.request({ a: i, b: 100, label: `n${i}` })));
      expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => ({ sum: i + 100, label: `n${i}` })));
      expect(batchSizes).toEqual([8, 8, 4]);
    });

    it('a lone request leaves at the end of its turn as a batch of one', async () => {
      batchSizes.length = 0;
      const batcher = new RpcBatcher(client, addMany, add, 8);
      await expect(batcher.request({ a: 1, b: 2, label: 'alone' })).resolves.toEqual({ sum: 3, label: 'alone' });
      expect(batchSizes).toEqual([1]);
    });

    it('an item that fails gets its own code; the others of its batch are answered', async () => {
      batchSizes.length = 0;
      const batcher = new RpcBatcher(client, addMany, add, 8);
      const settled = await Promise.allSettled(['a', 'refuse', 'b', 'crash'].map((label, i) => batcher.request({ a: i, b: 0, label })));
      expect(batchSizes).toEqual([4]);
      expect(settled[0]).toEqual({ status: 'fulfilled', value: { sum: 0, label: 'a' } });
      expect(settled[2]).toEqual({ status: 'fulfilled', value: { sum: 2, label: 'b' } });
      expect(settled[1]).toMatchObject({ status: 'rejected', reason: { code: ErrorCode.RESOURCE_NOT_FOUND } });
      expect(settled[3]).toMatchObject({ status: 'rejected', reason: { code: ErrorCode.SERVER_INTERNAL_ERROR } });
      expect(String((settled[3] as PromiseRejectedResult).reason)).not.toContain('internal detail');
    });

    it('an item the server answers alone is asked for again with the single request', async () => {
      batchSizes.length = 0;
      const batcher = new RpcBatcher(client, addMany, add, 8);
      const answers = await Promise.all(['a', 'too large for the batch', 'b'].map((label, i) => batcher.request({ a: i, b: 10, label })));
      expect(answers).toEqual([
        { sum: 10, label: 'a' },
        { sum: 11, label: 'too large for the batch' },
        { sum: 12, label: 'b' },
      ]);
      expect(batchSizes).toEqual([3]);
    });

    it('a batch the server refuses as a whole fails every caller with that code', async () => {
      const batcher = new RpcBatcher(client, addMany, add, 8);
      const invalid = { a: 'one', b: 2, label: 'x' } as unknown as AddQuery;
      const settled = await Promise.allSettled([batcher.request({ a: 1, b: 2, label: 'fine' }), batcher.request(invalid)]);
      expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      expect(settled[0]).toMatchObject({ reason: { code: ErrorCode.VALIDATION_FAILED } });
    });

    it('nobody answering: every caller gets the unavailable code', async () => {
      const batcher = new RpcBatcher(client, defineRpc<BatchResults<{ sum: number; label: string }>>()(`${prefix}.nobodyMany`, AddManyQuery), add, 8);
      const settled = await Promise.allSettled([1, 2, 3].map((a) => batcher.request({ a, b: 0, label: 'x' })));
      expect(settled.every((result) => result.status === 'rejected' && (result.reason as DomainException).code === ErrorCode.WATERMARK_V2_UNAVAILABLE)).toBe(true);
    });
  });

  describe('a request lost on the way (its NATS node killed) is sent again only where that is safe', () => {
    const codec = JSONCodec<{ id?: string }>();
    let responder: NatsConnection;

    beforeAll(async () => {
      responder = await connect({ servers: testInfra.natsUrl });
    });

    afterAll(async () => {
      await responder.drain();
    });

    /** A replica answering as `@RpcHandler`s do; with `dropFirst`, never the first request it receives (lost with a route). */
    function replicaOf(pattern: string, dropFirst: boolean): { received: () => number } {
      let received = 0;
      responder.subscribe(pattern, {
        callback: (_error, message) => {
          received += 1;
          if (received > 1 || !dropFirst) {
            message.respond(codec.encode({ response: { attempt: received }, isDisposed: true, id: codec.decode(message.data).id } as { id?: string }));
          }
        },
      });
      return { received: () => received };
    }

    it('an idempotent query whose first request got no answer is answered by a second within the timeout', async () => {
      const query = defineRpc<{ attempt: number }>()(`${prefix}.lostQuery`, AddQuery, { idempotent: true });
      const replica = replicaOf(query.pattern, true);
      await responder.flush();
      // A first attempt of 2 s, then up to 4 s for the second: its round trip holds on a loaded machine.
      await expect(client.request(query, { a: 1, b: 2, label: 'x' }, 6000)).resolves.toEqual({ attempt: 2 });
      expect(replica.received()).toBe(2);
    });

    it('a command that may act twice is not sent again when its answer does not come: 503, received once', async () => {
      const command = defineRpc<{ attempt: number }>()(`${prefix}.lostCommand`, AddQuery);
      const replica = replicaOf(command.pattern, true);
      await responder.flush();
      await expect(client.request(command, { a: 1, b: 2, label: 'x' }, 1500)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
      await responder.flush();
      expect(replica.received()).toBe(1);
    });

    it('a command nobody received (no responders while its service reconnects) is sent again once a replica subscribes', async () => {
      const command = defineRpc<{ attempt: number }>()(`${prefix}.resubscribing`, AddQuery);
      let replica: { received: () => number } | undefined;
      const subscribeLater = new Promise<void>((resolve) =>
        setTimeout(() => {
          replica = replicaOf(command.pattern, false);
          void responder.flush().then(resolve);
        }, 500),
      );
      const answer = client.request(command, { a: 1, b: 2, label: 'x' }, 5000);
      await subscribeLater;
      // Sent again while nobody listened (each of those reached no one), answered once the replica listens.
      await expect(answer).resolves.toEqual({ attempt: 1 });
      expect(replica?.received()).toBe(1);
    });
  });
});
