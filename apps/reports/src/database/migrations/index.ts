import { Init1795310378816 } from './1795310378816-Init';

/** Committed migrations, in order; run at start by the service. */
export const REPORTS_MIGRATIONS = [Init1795310378816];
