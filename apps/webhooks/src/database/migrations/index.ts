import { Init1795310381187 } from './1795310381187-Init';
import { Deliveries1795311109071 } from './1795311109071-Deliveries';

/** Committed migrations, in order; run at start by the service. */
export const WEBHOOKS_MIGRATIONS = [Init1795310381187, Deliveries1795311109071];
