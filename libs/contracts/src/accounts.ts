import { IsDefined, IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import type { Durable } from './durables';
import { EventSubjects } from './subjects';
import { IsNestedObject } from './validators';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Requests per minute by plan (spec section 8). */
export const PLAN_REQUESTS_PER_MINUTE: Record<Plan, number> = {
  free: 60,
  pro: 300,
  enterprise: 1000,
};

export type KeyMode = 'live' | 'test';

/** Who is calling: resolved by the gateway from the API key and passed with every command and query. */
export class CallerContext {
  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsIn(['live', 'test'])
  mode!: KeyMode;
}

/** Base of every command and query made on behalf of a caller. */
export class CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CallerContext)
  caller!: CallerContext;
}

/** Base of every command and query about one of the caller's orders. */
export class OrderScoped extends CallerScoped {
  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

/**
 * `evt.gateway.api-key.revoked`: every gateway replica drops the key from its authentication cache when it
 * sees this (core NATS subscription), so a revoked key stops working within a second everywhere.
 */
export class ApiKeyRevokedEvent {
  static readonly subject = EventSubjects.apiKeyRevoked;

  @Matches(/^[0-9]{1,20}$/)
  keyId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;
}

/**
 * `evt.gateway.account.erasure-requested`: an operator erased the account (`admin account erase`). The gateway has
 * already revoked and deleted its keys (its requests are refused from then on); every service deletes the account's
 * rows in its own schema when it consumes this (the orders service its orders, their files, outputs, reports and
 * credit ledger; the watermark processor its issuances; webhooks its endpoints, deliveries and the owner's e-mail
 * address). Idempotent: a redelivery deletes nothing more.
 */
export class AccountErasureRequestedEvent {
  static readonly subject = EventSubjects.accountErasureRequested;

  @Matches(/^[0-9a-f-]{36}$/)
  erasureId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;
}

/**
 * The durable consumers of `AccountErasureRequestedEvent`, one per service holding account data: the admin CLI
 * waits until each has acknowledged the erasure (`account erase --wait`).
 */
export const AccountErasureConsumers = {
  orders: 'orders-account-erasure',
  uploads: 'uploads-account-erasure',
  watermark: 'watermark-account-erasure',
  reports: 'reports-account-erasure',
  webhooks: 'webhooks-account-erasure',
  retention: 'retention-account-erasure',
} as const satisfies Record<string, Durable>;

/** `evt.gateway.account.created` */
export class AccountCreatedEvent {
  static readonly subject = EventSubjects.accountCreated;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsString()
  @IsNotEmpty()
  name!: string;

  @IsIn(PLANS)
  plan!: Plan;

  /** Where failure notifications go; null when the account has none. */
  @IsOptional()
  @IsEmail()
  ownerEmail?: string | null;
}

/** `evt.gateway.credits.granted`: the orders service adds `amount` to the account's ledger once per `grantId`. */
export class CreditsGrantedEvent {
  static readonly subject = EventSubjects.creditsGranted;

  @Matches(/^[0-9a-f-]{36}$/)
  grantId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsInt()
  @Min(-1_000_000_000)
  @Max(1_000_000_000)
  amount!: number;

  @IsString()
  reason!: string;
}

/**
 * `orders.credit-grant`: whether the orders service has applied one grant (`CreditsGrantedEvent.grantId`) to the
 * account's ledger. The admin CLI waits for it, so keys and credits it prints can be used at once: the grant reaches
 * the orders service through the gateway's outbox a moment after the CLI wrote it.
 */
export class CreditGrantQuery {
  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @Matches(/^[0-9a-f-]{36}$/)
  grantId!: string;
}

export interface CreditGrantView {
  applied: boolean;
  /** The account's balance now (0 for an account the orders service does not know yet). */
  balance: number;
}
