import { type Outbox, recordUsage } from "@gw/accounting";
import type { ConfigStore } from "@gw/config-store";
import type { Logger } from "@gw/logger";
import type { BudgetServiceService } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";
import { decryptSecret } from "@gw/security";
import type { Dispatcher } from "undici";
import type { RoutingModelCall } from "./engine/index.js";
import { createRoutingModelCaller, type RoutingModelUsage } from "./routing-model/index.js";

/**
 * The `llm` policy's routing-model caller, wired to this process: model lookup through the config
 * cache, upstream keys decrypted with the service key, the budget service for reservations, and
 * usage records (`callType: "routing"`, endpoint `routing`) through an outbox so none is lost.
 * Without `SERVICE_SECRET_KEY` the policy cannot call a model: it is disabled (and traced so).
 */
export function createLlmCaller(options: {
  configStore: ConfigStore;
  secretKey: Buffer | undefined;
  budget: AsyncClient<typeof BudgetServiceService>;
  outbox: Outbox;
  dispatcher: Dispatcher;
  logger: Logger;
}): RoutingModelCall | undefined {
  const { secretKey, outbox, logger } = options;
  if (!secretKey) {
    logger.warn("the llm routing policy is disabled: SERVICE_SECRET_KEY is not set");
    return undefined;
  }
  return createRoutingModelCaller({
    modelById: (id) => options.configStore.modelById(id),
    decryptApiKey: (stored) => decryptSecret(stored, secretKey),
    dispatcher: options.dispatcher,
    budget: options.budget,
    logger,
    recordUsage: (usage: RoutingModelUsage) =>
      recordUsage(outbox, {
        recordId: `${usage.traceId}-routing-${usage.attempt}`,
        callType: "routing",
        traceId: usage.traceId,
        startedAt: Date.now() - usage.durationMs,
        projectId: usage.projectId,
        projectSlug: usage.projectSlug,
        tokenId: usage.tokenId,
        tags: {},
        sessionId: "",
        endUser: "",
        endpoint: "routing",
        attempt: usage.attempt,
        modelId: usage.modelId,
        provider: usage.provider,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheTokens: usage.cacheTokens,
        costMicros: usage.costMicros,
        outcome: usage.outcome,
        status: usage.status,
        trace: [],
        errorMessage: usage.errorMessage,
        streamed: false,
      }),
  });
}
