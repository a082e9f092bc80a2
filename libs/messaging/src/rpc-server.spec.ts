// `@RpcHandler` checks a handler against its catalog declaration: at compile time (the `@ts-expect-error` lines
// below are type errors; `npx tsc -p tsconfig.json` fails when one of them stops being an error) and, for the
// payload class the validation pipe validates with, when the class is defined.
import { defineRpc, DomainException, ErrorCode } from '@cp/contracts';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { IsInt, IsString } from 'class-validator';
import { messagingMetrics } from './messaging-metrics';
import { RpcHandler, RpcValidationPipe } from './rpc-server';

class AddQuery {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;
}

/** A request class with other fields than the declaration's. */
class GreetQuery {
  @IsString()
  name!: string;
}

/**
 * The same shape as AddQuery with looser rules: the compiler accepts it as the payload (types are structural),
 * but the pipe would validate the payload with its rules instead of the declaration's.
 */
class AddQueryLookalike {
  a!: number;

  b!: number;
}

const add = defineRpc<{ sum: number }>()('test.add', AddQuery);

/** The patterns Nest will serve with a method (metadata on the function itself). */
function patternsOf(type: { prototype: object }, method: string): unknown {
  const handler = Reflect.get(type.prototype, method) as object;
  return Reflect.getMetadata(PATTERN_METADATA, handler);
}

describe('@RpcHandler', () => {
  it('serves the declared pattern with the method and takes its payload from the first parameter', () => {
    class Calculator {
      @RpcHandler(add)
      async add(query: AddQuery): Promise<{ sum: number }> {
        return { sum: query.a + query.b };
      }
    }
    expect(patternsOf(Calculator, 'add')).toEqual(['test.add']);
    // What `@Payload()` records: Nest hands the message data to parameter 0 (through the validation pipe).
    const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, Calculator, 'add') as Record<string, { index: number }>;
    expect(Object.values(parameters).map((parameter) => parameter.index)).toEqual([0]);
  });

  it('accepts a handler that does not read the payload', () => {
    class Calculator {
      @RpcHandler(add)
      async zero(): Promise<{ sum: number }> {
        return { sum: 0 };
      }
    }
    expect(patternsOf(Calculator, 'zero')).toEqual(['test.add']);
  });

  it('is a compile error when the payload parameter is not the declared request', () => {
    expect(() => {
      class Calculator {
        // @ts-expect-error GreetQuery is not AddQuery
        @RpcHandler(add)
        async add(query: GreetQuery): Promise<{ sum: number }> {
          return { sum: query.name.length };
        }
      }
      return Calculator;
    }).toThrow('the payload parameter is GreetQuery, the declaration\'s request is AddQuery');
  });

  it('is a compile error when the answer is not the declared response', () => {
    const define = () => {
      class Calculator {
        // @ts-expect-error the declared response is { sum: number }
        @RpcHandler(add)
        async add(query: AddQuery): Promise<{ total: number }> {
          return { total: query.a + query.b };
        }
      }
      return Calculator;
    };
    // The response type is compile-time only: nothing to check when the class is defined.
    expect(define).not.toThrow();
  });

  it('is a compile error when the handler answers synchronously', () => {
    const define = () => {
      class Calculator {
        // @ts-expect-error a handler resolves to its answer (Promise)
        @RpcHandler(add)
        add(query: AddQuery): { sum: number } {
          return { sum: query.a + query.b };
        }
      }
      return Calculator;
    };
    expect(define).not.toThrow();
  });

  it('refuses, when the class is defined, a payload class the compiler accepts structurally', () => {
    expect(() => {
      class Calculator {
        @RpcHandler(add)
        async add(query: AddQueryLookalike): Promise<{ sum: number }> {
          return { sum: query.a + query.b };
        }
      }
      return Calculator;
    }).toThrow('the payload parameter is AddQueryLookalike, the declaration\'s request is AddQuery');
  });

  it('records every call of the method by subject and outcome (ok, rejected with a domain code, failed), keeping its metadata', async () => {
    const count = async (outcome: string): Promise<number> => {
      const metric = await messagingMetrics.rpcDuration.get();
      const value = metric.values.find((entry) => entry.metricName === 'rpc_server_duration_seconds_count' && entry.labels.subject === 'test.add' && entry.labels.outcome === outcome);
      return value?.value ?? 0;
    };
    class Calculator {
      @RpcHandler(add)
      async add(query: AddQuery): Promise<{ sum: number }> {
        if (query.a < 0) {
          throw new DomainException(ErrorCode.VALIDATION_FAILED, 'negative');
        }
        if (query.a === 0) {
          throw new Error('boom');
        }
        return { sum: query.a + query.b };
      }
    }
    const before = { ok: await count('ok'), rejected: await count('rejected'), failed: await count('failed') };
    const calculator = new Calculator();
    await expect(calculator.add(Object.assign(new AddQuery(), { a: 1, b: 2 }))).resolves.toEqual({ sum: 3 });
    await expect(calculator.add(Object.assign(new AddQuery(), { a: -1, b: 2 }))).rejects.toBeInstanceOf(DomainException);
    await expect(calculator.add(Object.assign(new AddQuery(), { a: 0, b: 2 }))).rejects.toThrow('boom');
    await expect(calculator.add(Object.assign(new AddQuery(), { a: 2, b: 2 }))).resolves.toEqual({ sum: 4 });
    expect({ ok: await count('ok'), rejected: await count('rejected'), failed: await count('failed') }).toEqual({
      ok: before.ok + 2,
      rejected: before.rejected + 1,
      failed: before.failed + 1,
    });
    expect(patternsOf(Calculator, 'add')).toEqual(['test.add']);
  });
});

describe('RpcValidationPipe', () => {
  const pipe = new RpcValidationPipe();
  const metadata = { type: 'body' as const, metatype: AddQuery };

  it('builds a valid payload into its class', () => {
    expect(pipe.transform({ a: 1, b: 2 }, metadata)).toEqual(Object.assign(new AddQuery(), { a: 1, b: 2 }));
  });

  it.each(['{"a":1,"b":2,"foo":1}', '{"a":1,"b":2,"toString":1}', '{"a":1,"b":2,"constructor":1}', '{"a":1,"b":2,"__proto__":{"x":1}}', '{"a":1,"b":2,"hasOwnProperty":1}'])(
    'refuses a key no field holds, also one named like an Object.prototype member: %s',
    (json) => {
      let refused: unknown = null;
      try {
        pipe.transform(JSON.parse(json) as unknown, metadata);
      } catch (error) {
        refused = error;
      }
      expect(refused instanceof DomainException && refused.code).toBe(ErrorCode.VALIDATION_FAILED);
    },
  );
});
