import { drainBatches, PeriodicTask } from '@cp/runtime';
import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RegisterMissingSlotsUseCase, SLOT_SWEEP_INTERVAL_MS } from './register-missing-slots.use-case';

/** Runs the sweep of lost slot registrations every `SLOT_SWEEP_INTERVAL_MS`. */
@Injectable()
export class SlotRegistrationScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(registerMissingSlots: RegisterMissingSlotsUseCase) {
    this.task = new PeriodicTask('slot registration sweep', SLOT_SWEEP_INTERVAL_MS, (isStopping) => drainBatches(() => registerMissingSlots.execute(), isStopping).then(() => undefined));
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}
