import type { Outbox } from "@gw/accounting";
import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";

/** What the management API needs; both run modes build it (standalone shares ingress's outbox). */
export interface AdminDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** HS256 key of access tokens (derived from SERVICE_SECRET_KEY: auth/jwt.ts deriveJwtKey). */
  jwtKey: Buffer;
  /** Login rate limits, shared by every replica. */
  counters: CounterStore;
  /** Audit entries and events, published without loss. */
  outbox: Outbox;
  version: string;
  now?: () => number;
}
