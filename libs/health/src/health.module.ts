import { Controller, Get, Global, Header, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { collectDefaultMetrics, register } from 'prom-client';
import { ReadinessRegistry } from './readiness-registry';

collectDefaultMetrics();

/** Operator endpoints, outside the public API: liveness, readiness, Prometheus metrics. */
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessRegistry) {}

  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() response: Response): Promise<void> {
    const result = await this.readiness.run();
    response.status(result.ready ? 200 : 503).json({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  }

  @Get('metrics')
  @Header('Content-Type', register.contentType)
  metrics(): Promise<string> {
    return register.metrics();
  }
}

@Global()
@Module({
  controllers: [HealthController],
  providers: [ReadinessRegistry],
  exports: [ReadinessRegistry],
})
export class HealthModule {}
