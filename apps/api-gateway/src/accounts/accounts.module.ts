import { AccountsRepository } from '@cp/gateway-data-access';
import { OutboxWriter } from '@cp/messaging';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';

@Module({
  providers: [
    {
      provide: AccountsRepository,
      inject: [DataSource, OutboxWriter],
      useFactory: (dataSource: DataSource, outbox: OutboxWriter) => new AccountsRepository(dataSource, outbox),
    },
  ],
  exports: [AccountsRepository],
})
export class AccountsModule {}
