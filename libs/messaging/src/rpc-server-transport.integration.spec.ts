// Real NATS: the services' RPC server at shutdown (a rolling update). A request it took is answered before its
// connection closes, requests sent once it stopped taking them go to the other members of its queue group, and a
// handler that never answers does not hold the shutdown.
import { defineRpc, ErrorCode } from '@cp/contracts';
import { testInfra, uniqueName } from '@cp/testing';
import { Controller, Inject, INestMicroservice, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import { RpcClient, RpcClientModule } from './rpc-client';
import { RpcHandler, RpcHandlers } from './rpc-server';
import { createRpcServer, DrainingRpcServer } from './rpc-server-transport';

class WhoQuery {
  @IsString()
  label!: string;
}

const prefix = uniqueName('it_rpc_close');
const who = defineRpc<{ member: string; label: string }>()(`${prefix}.who`, WhoQuery);
const held = defineRpc<{ member: string; label: string }>()(`${prefix}.held`, WhoQuery);

/** A gate the `held` handler waits on, and the signal that it has started. */
class Gate {
  release!: () => void;
  readonly opened = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  started!: () => void;
  readonly entered = new Promise<void>((resolve) => {
    this.started = resolve;
  });
}

const MEMBER = 'MEMBER';
const GATE = 'GATE';

@Controller()
@RpcHandlers()
class WhoController {
  constructor(
    @Inject(MEMBER) private readonly member: string,
    @Inject(GATE) private readonly gate: Gate,
  ) {}

  @RpcHandler(who)
  async who(query: WhoQuery): Promise<{ member: string; label: string }> {
    return { member: this.member, label: query.label };
  }

  @RpcHandler(held)
  async held(query: WhoQuery): Promise<{ member: string; label: string }> {
    this.gate.started();
    await this.gate.opened;
    return { member: this.member, label: query.label };
  }
}

async function member(name: string, gate: Gate, closeWaitMs?: number): Promise<{ app: INestMicroservice; server: DrainingRpcServer }> {
  @Module({ controllers: [WhoController], providers: [{ provide: MEMBER, useValue: name }, { provide: GATE, useValue: gate }] })
  class MemberModule {}
  const server = createRpcServer({ servers: [testInfra.natsUrl], queue: prefix }, closeWaitMs);
  const app = (await Test.createTestingModule({ imports: [MemberModule] }).compile()).createNestMicroservice({ strategy: server });
  await app.listen();
  return { app, server };
}

describe('the RPC server at shutdown (real NATS)', () => {
  let client: RpcClient;
  let closeClient: () => Promise<void>;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [RpcClientModule.register(testInfra.natsUrl, prefix, 8000)] }).compile();
    client = moduleRef.get(RpcClient);
    closeClient = () => moduleRef.close();
  });

  afterAll(async () => {
    await closeClient();
  });

  it('answers the request it took before its connection closes', async () => {
    const gate = new Gate();
    const leaving = await member('leaving', gate);
    const answer = client.request(held, { label: 'in flight' });
    await gate.entered;
    expect(leaving.server.inFlight).toBe(1);
    // Closing starts while the handler still works: Nest's own server closed its connection here and the reply was lost.
    const closing = leaving.app.close();
    gate.release();
    await expect(answer).resolves.toEqual({ member: 'leaving', label: 'in flight' });
    await closing;
    expect(leaving.server.inFlight).toBe(0);
  });

  it('once it stops taking requests, every new one is answered by another member of the queue group', async () => {
    const leaving = await member('leaving', new Gate());
    const staying = await member('staying', new Gate());
    try {
      await leaving.server.stopTaking();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.request(who, { label: `n${i}` })));
      expect(new Set(answers.map((answer) => answer.member))).toEqual(new Set(['staying']));
    } finally {
      await Promise.allSettled([leaving.app.close(), staying.app.close()]);
    }
  });

  it('a handler that never answers holds the shutdown for the wait bound only; its caller gets the unavailable code', async () => {
    const gate = new Gate();
    const stuck = await member('stuck', gate, 200);
    const answer = client.request(held, { label: 'never' }, 1500).catch((error: unknown) => error);
    await gate.entered;
    await stuck.app.close();
    expect(stuck.server.inFlight).toBe(1);
    await expect(answer).resolves.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    gate.release();
  });
});
