import type { Outbox } from "@gw/accounting";
import type { ConfigStore } from "@gw/config-store";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import type { BudgetServiceService, RoutingServiceService } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";
import { decryptSecret } from "@gw/security";
import type { FastifyInstance } from "fastify";
import type { Dispatcher } from "undici";
import type { IngressConfig } from "./config.js";
import { type AuthEvents, createAuthEvents } from "./proxy/auth-events.js";
import { createOutcomeReporter, type OutcomeReporter } from "./proxy/outcome-reporter.js";
import { createResponseStore, type ResponseStore } from "./proxy/stored-responses.js";

/** Everything ingress needs, built by its own main (distributed) or by standalone (in-process clients). */
export interface IngressDeps {
  logger: Logger;
  version: string;
  configStore: ConfigStore;
  routing: AsyncClient<typeof RoutingServiceService>;
  budget: AsyncClient<typeof BudgetServiceService>;
  outbox: Outbox;
  /** Stored `/v1/responses` answers for `previous_response_id`. */
  responses: ResponseStore;
  authEvents: AuthEvents;
  /** Upstream attempt outcomes into routing's shared health. */
  outcomes: OutcomeReporter;
  /** Decrypts a model's stored upstream key. */
  decryptApiKey: (stored: string) => string;
  upstream: Dispatcher;
  /** Provider timeout from the environment, ms (a project's defaultTimeoutMs, then the settings', win). */
  defaultTimeoutMs: number;
  /** Deadline of one routing/budget call, ms. */
  rpcDeadlineMs: number;
  bodyLimitBytes: number;
  /**
   * Readiness of what a proxy call needs besides this process: the names of the dependencies not
   * reachable now (empty = ready). Standalone has none; distributed checks routing and budget.
   */
  notReady: () => Promise<string[]>;
  /** Routes served beside the proxy on the same port: the management API in standalone mode. */
  mountExtraRoutes?: (app: FastifyInstance) => void;
}

/** IngressDeps from the configuration and the parts each mode builds its own way. */
export function ingressDeps(
  config: IngressConfig,
  parts: Pick<
    IngressDeps,
    "logger" | "version" | "configStore" | "routing" | "budget" | "outbox" | "upstream"
  > & {
    secretKey: Buffer;
    prisma: PrismaClient;
    notReady?: IngressDeps["notReady"];
    mountExtraRoutes?: IngressDeps["mountExtraRoutes"];
  },
): IngressDeps {
  const { secretKey, prisma, notReady, ...rest } = parts;
  return {
    ...rest,
    notReady: notReady ?? (async () => []),
    responses: createResponseStore(prisma),
    authEvents: createAuthEvents(rest.outbox),
    outcomes: createOutcomeReporter(rest.routing, rest.logger, { deadlineMs: config.GRPC_DEADLINE_MS }),
    decryptApiKey: (stored) => decryptSecret(stored, secretKey),
    defaultTimeoutMs: config.DEFAULT_TIMEOUT_MS,
    rpcDeadlineMs: config.GRPC_DEADLINE_MS,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
  };
}
