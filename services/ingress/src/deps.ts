import type { ConfigStore } from "@gw/config-store";
import type { Logger } from "@gw/logger";
import type { BudgetServiceService, RoutingServiceService } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";
import { decryptSecret } from "@gw/security";
import type { Dispatcher } from "undici";
import type { Outbox } from "./accounting/outbox.js";
import type { IngressConfig } from "./config.js";

/** Everything ingress needs, built by its own main (distributed) or by standalone (in-process clients). */
export interface IngressDeps {
  logger: Logger;
  version: string;
  configStore: ConfigStore;
  routing: AsyncClient<typeof RoutingServiceService>;
  budget: AsyncClient<typeof BudgetServiceService>;
  outbox: Outbox;
  /** Decrypts a model's stored upstream key. */
  decryptApiKey: (stored: string) => string;
  upstream: Dispatcher;
  /** Global provider timeout, ms (a project's defaultTimeoutMs wins). */
  defaultTimeoutMs: number;
  /** Deadline of one routing/budget call, ms. */
  rpcDeadlineMs: number;
  bodyLimitBytes: number;
}

/** IngressDeps from the configuration and the parts each mode builds its own way. */
export function ingressDeps(
  config: IngressConfig,
  parts: Pick<
    IngressDeps,
    "logger" | "version" | "configStore" | "routing" | "budget" | "outbox" | "upstream"
  > & { secretKey: Buffer },
): IngressDeps {
  const { secretKey, ...rest } = parts;
  return {
    ...rest,
    decryptApiKey: (stored) => decryptSecret(stored, secretKey),
    defaultTimeoutMs: config.DEFAULT_TIMEOUT_MS,
    rpcDeadlineMs: config.GRPC_DEADLINE_MS,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
  };
}
