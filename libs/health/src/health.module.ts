import { Controller, Get, Global, HttpCode, Module, NotFoundException, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { collectDefaultMetrics } from 'prom-client';
import { ReadinessRegistry } from './readiness-registry';

collectDefaultMetrics();

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Operator endpoints, outside the public API: liveness and readiness (the chart's probes use the service
 * port). Prometheus metrics are served by `MetricsServer` on the internal metrics port only.
 */
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

  /**
   * Kubernetes preStop (deploy/helm): stop pulling new jobs, wait for the ones in flight, report not
   * ready. Only from inside the pod (loopback); anyone else gets a plain 404.
   */
  @Post('drain')
  @HttpCode(200)
  async drain(@Req() request: Request): Promise<{ status: 'drained' }> {
    if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
      throw new NotFoundException();
    }
    await this.readiness.drain();
    return { status: 'drained' };
  }
}

@Global()
@Module({
  controllers: [HealthController],
  providers: [ReadinessRegistry],
  exports: [ReadinessRegistry],
})
export class HealthModule {}
