// A database that cannot give a connection answers 503 with Retry-After, never 500 (real PostgreSQL, NATS, HTTP):
// on the gateway itself (its pool of one connection held busy, a short connect timeout) and for the answer of a
// service behind it over NATS (a service whose database goes away after its start: its connections go through a
// proxy the test closes), through the gateway's own exception filter and the services' RPC error filter.
import { defineRpc, ErrorCode } from '@cp/contracts';
import { serviceDataSourceOptions } from '@cp/database';
import { RpcClient, RpcClientModule, RpcHandler, RpcHandlers } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { Controller, Get, INestApplication, INestMicroservice, Module } from '@nestjs/common';
import { Transport } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { DataSource, QueryRunner } from 'typeorm';
import { HttpExceptionFilter } from './http-exception.filter';

const prefix = uniqueName('it_unavailable');

class ProbeQuery {
  @IsString()
  label!: string;
}
const probe = defineRpc<{ n: number }>()(`${prefix}.probe`, ProbeQuery);

/**
 * The gateway's pool: one connection, a 1 s wait for it. Not 200 ms: the wait bounds the pool's first connection too,
 * which a loaded machine (a test run beside other work) once took longer than that to open.
 */
let gatewayPool: DataSource;
/** A service's pool, connected through `proxy` to the database. */
let servicePool: DataSource;

@Controller()
@RpcHandlers()
class ServiceController {
  @RpcHandler(probe)
  async probe(): Promise<{ n: number }> {
    const rows = await servicePool.query<Array<{ n: number }>>('SELECT 1 AS n');
    return rows[0];
  }
}

@Module({ controllers: [ServiceController] })
class ServiceModule {}

@Controller()
class GatewayProbeController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('local')
  async local(): Promise<{ n: number }> {
    const rows = await gatewayPool.query<Array<{ n: number }>>('SELECT 1 AS n');
    return rows[0];
  }

  @Get('remote')
  remote(): Promise<{ n: number }> {
    return this.rpc.request(probe, { label: 'x' });
  }
}

describe('database unavailable → 503 with Retry-After (real PostgreSQL, NATS and HTTP)', () => {
  const base = { schema: 'public', entities: [], migrations: [], applicationName: 'it-unavailable' };
  let holder: QueryRunner;
  let service: INestMicroservice;
  let app: INestApplication;
  let origin: string;
  let proxy: Server;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    gatewayPool = await new DataSource(serviceDataSourceOptions({ ...base, url: testInfra.databaseUrl, poolSize: 1, connectionTimeoutMs: 1000 })).initialize();
    holder = gatewayPool.createQueryRunner();
    await holder.connect();
    const database = new URL(testInfra.databaseUrl);
    proxy = createServer((client) => {
      const upstream = connect(Number(database.port || 5432), database.hostname);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(testInfra.databaseUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String((proxy.address() as AddressInfo).port);
    servicePool = await new DataSource(serviceDataSourceOptions({ ...base, url: proxied.toString(), connectionTimeoutMs: 2000 })).initialize();

    service = (await Test.createTestingModule({ imports: [ServiceModule] }).compile()).createNestMicroservice({
      transport: Transport.NATS,
      options: { servers: [testInfra.natsUrl], queue: prefix },
    });
    await service.listen();
    const moduleRef = await Test.createTestingModule({ imports: [RpcClientModule.register(testInfra.natsUrl, prefix, 5000)], controllers: [GatewayProbeController] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new HttpExceptionFilter());
    await app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(app.getHttpServer() as { address(): AddressInfo }).address().port}`;
  });

  afterAll(async () => {
    // What the setup opened (all of it, unless it failed part way: its own error is then the one shown)
    await app?.close();
    await service?.close();
    await holder?.release();
    await gatewayPool?.destroy();
    await servicePool?.destroy().catch(() => undefined);
  });

  it('the gateway whose pool cannot give a connection answers 503 WATERMARK_V2_UNAVAILABLE with Retry-After', async () => {
    const response = await fetch(`${origin}/local`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
  });

  it('a service whose database is down answers the RPC with the 503 code, and the gateway 503 with Retry-After', async () => {
    await expect(servicePool.query('SELECT 1 AS n')).resolves.toEqual([{ n: 1 }]);
    // The database goes away: new connections are refused, the open ones are cut.
    await new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      sockets.forEach((socket) => socket.destroy());
    });
    const response = await fetch(`${origin}/remote`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
  });

  it('answers again once a connection is free', async () => {
    await holder.release();
    const response = await fetch(`${origin}/local`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ n: 1 });
    holder = gatewayPool.createQueryRunner();
    await holder.connect();
  });
});
