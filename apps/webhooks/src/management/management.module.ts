import { Rpcs } from '@cp/contracts';
import { ORDER_STEPS_SOURCE, orderStepsController } from '@cp/messaging';
import { Module } from '@nestjs/common';
import { WebhookOrderStepsRepository } from '../deliveries/webhook-order-steps.repository';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { ErasureModule } from '../erasure/erasure.module';
import { WebhookManagementService } from './webhook-management.service';
import { WebhooksRpcController } from './webhooks.controller';

@Module({
  imports: [EndpointsModule, DeliveriesModule, ErasureModule],
  controllers: [WebhooksRpcController, orderStepsController(Rpcs.webhooksOrderSteps, 'webhooks')],
  providers: [WebhookManagementService, { provide: ORDER_STEPS_SOURCE, useClass: WebhookOrderStepsRepository }],
})
export class ManagementModule {}
