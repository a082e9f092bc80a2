import { AccountsRepository } from '@cp/gateway-data-access';
import { Module } from '@nestjs/common';

/** The gateway's accounts and keys (the repository takes the service's DataSource and the outbox writer). */
@Module({
  providers: [AccountsRepository],
  exports: [AccountsRepository],
})
export class AccountsModule {}
