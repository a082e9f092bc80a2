import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { WebhookManagementService } from './webhook-management.service';
import { WebhooksRpcController } from './webhooks.controller';

@Module({
  imports: [EndpointsModule, DeliveriesModule],
  controllers: [WebhooksRpcController],
  providers: [WebhookManagementService],
})
export class ManagementModule {}
