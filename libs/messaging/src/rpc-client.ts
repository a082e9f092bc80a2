import { DomainException, ErrorCode, isErrorCode, RpcContract } from '@cp/contracts';
import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy, ClientsModule, Transport } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import { NATS_RECONNECT_OPTIONS } from './nats-connection.service';

export const RPC_CLIENT = Symbol('RPC_CLIENT');
export const RPC_TIMEOUT_MS = Symbol('RPC_TIMEOUT_MS');

/** Commands and queries over NATS request/reply; errors come back as DomainException with the public code. */
@Injectable()
export class RpcClient implements OnApplicationShutdown {
  constructor(
    @Inject(RPC_CLIENT) private readonly client: ClientProxy,
    @Inject(RPC_TIMEOUT_MS) private readonly defaultTimeoutMs: number,
  ) {}

  /** Sends a declared request (`Rpcs.*` of `@cp/contracts`): request and response types come from the declaration. */
  async request<TRequest extends object, TResponse>(
    contract: RpcContract<TRequest, TResponse>,
    payload: TRequest,
    timeoutMs: number = this.defaultTimeoutMs,
  ): Promise<TResponse> {
    const pattern = contract.pattern;
    try {
      return await firstValueFrom(this.client.send<TResponse>(pattern, payload).pipe(timeout(timeoutMs)));
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (isErrorCode(code)) {
        throw new DomainException(code, `${pattern} answered ${code}`);
      }
      // No replica answering, or the NATS connection down (reconnecting, closed): retryable, so 503.
      if (error instanceof TimeoutError || /no subscribers|no responders|connection lost|reconnect|connection closed|disconnect/i.test(String((error as Error)?.message))) {
        throw new DomainException(ErrorCode.WATERMARK_V2_UNAVAILABLE, `${pattern} is unavailable`);
      }
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

@Global()
@Module({})
export class RpcClientModule {
  static register(natsUrl: string, name: string, timeoutMs = 15_000): DynamicModule {
    return {
      module: RpcClientModule,
      imports: [
        ClientsModule.register([
          { name: RPC_CLIENT, transport: Transport.NATS, options: { servers: [natsUrl], name: `${name}-rpc`, ...NATS_RECONNECT_OPTIONS } },
        ]),
      ],
      providers: [RpcClient, { provide: RPC_TIMEOUT_MS, useValue: timeoutMs }],
      exports: [RpcClient],
    };
  }
}
