// Real NATS: the RPC client against a `@nestjs/microservices` NATS server built like the services' (validation
// pipe, `{ code }` errors), so the wire format both ends speak is checked, not assumed.
import { defineRpc, DomainException, ErrorCode } from '@cp/contracts';
import { testInfra, uniqueName } from '@cp/testing';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload, Transport } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { IsInt, IsString } from 'class-validator';
import { RpcClient, RpcClientModule } from './rpc-client';
import { RpcHandlers } from './rpc-server';

class AddQuery {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;

  @IsString()
  label!: string;
}

const prefix = uniqueName('it_rpc');
const add = defineRpc<{ sum: number; label: string }>()(`${prefix}.add`, AddQuery);
const refuse = defineRpc<never>()(`${prefix}.refuse`, AddQuery);
const crash = defineRpc<never>()(`${prefix}.crash`, AddQuery);
const slow = defineRpc<{ sum: number }>()(`${prefix}.slow`, AddQuery);
const nobody = defineRpc<never>()(`${prefix}.nobody`, AddQuery);

@Controller()
@RpcHandlers()
class CalculatorController {
  @MessagePattern(add.pattern)
  add(@Payload() query: AddQuery): { sum: number; label: string } {
    return { sum: query.a + query.b, label: query.label };
  }

  @MessagePattern(refuse.pattern)
  refuse(): never {
    throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'no such thing');
  }

  @MessagePattern(crash.pattern)
  crash(): never {
    throw new Error('internal detail that must not travel');
  }

  @MessagePattern(slow.pattern)
  async slow(@Payload() query: AddQuery): Promise<{ sum: number }> {
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
      transport: Transport.NATS,
      options: { servers: [testInfra.natsUrl], queue: prefix },
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

  it('nobody subscribed: 503 code at once, without waiting for the timeout', async () => {
    const started = Date.now();
    await expect(client.request(nobody, { a: 1, b: 2, label: 'x' }, 10_000)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an answer later than the timeout is 503, and the late answer harms nothing after it', async () => {
    await expect(client.request(slow, { a: 1, b: 2, label: 'x' }, 300)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(client.request(add, { a: 2, b: 3, label: 'after' })).resolves.toEqual({ sum: 5, label: 'after' });
  });
});
