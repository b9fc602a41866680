import type { Outbox } from "@gw/accounting";
import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import type { BudgetServiceService } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";

/** What the management API needs; both run modes build it (standalone shares ingress's outbox). */
export interface AdminDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** HS256 key of access tokens (derived from SERVICE_SECRET_KEY: auth/jwt.ts deriveJwtKey). */
  jwtKey: Buffer;
  /** SERVICE_SECRET_KEY: upstream keys and channel/integration secrets are encrypted with it. */
  secretKey: Buffer;
  /** Login rate limits, shared by every replica. */
  counters: CounterStore;
  /** Audit entries, events and config changes, published without loss. */
  outbox: Outbox;
  /** The budget service: spend-group usage (`GroupUsage`). */
  budget: AsyncClient<typeof BudgetServiceService>;
  /**
   * Called after every configuration change is published, in this process: standalone drops its
   * shared config cache at once (other processes learn it from the bus).
   */
  onConfigChanged?: (entity: string) => void;
  /**
   * Prefix of the shared metric state keys (@gw/metrics `metricKeyPrefix(BUS_NAMESPACE)`), so
   * GET /api/metrics and test pushes read what the exporter counts. None in standalone.
   */
  metricsKeyPrefix?: string;
  version: string;
  now?: () => number;
}
