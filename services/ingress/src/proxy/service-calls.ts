import type { ModelConfig } from "@gw/config-store";
import { DEFAULT_ROUTING_MODEL_TIMEOUT_MS } from "@gw/config-store";
import { Errors, GatewayError } from "@gw/errors";
import type { CanonicalRequest } from "@gw/llm";
import { worstCaseOutputTokens } from "@gw/pricing";
import type { Candidate } from "@gw/proto";
import { isRetryableRpcError, RpcError } from "@gw/rpc";
import type { IngressDeps } from "../deps.js";
import type { CallerContext } from "./caller.js";
import type { ProxyCall } from "./proxy-call.js";
import type { CallUsage } from "./usage.js";

/**
 * Ingress's calls to routing and budget: the candidate list, the worst-case reservation of one
 * attempt, its settlement, and the health report of each upstream attempt. Routing or budget
 * unreachable refuses the request (fail closed), never sends it unchecked.
 */

const EXCERPT_CHARS = 2000;

/** A project routed by the `llm` policy waits for its routing model too: the Route deadline grows by its limit. */
function routingModelAllowanceMs(caller: CallerContext): number {
  const llm = caller.project.routing.llm;
  if (!llm || !caller.project.policies.includes("llm")) return 0;
  return llm.timeoutMs ?? DEFAULT_ROUTING_MODEL_TIMEOUT_MS;
}

export async function routeCandidates(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  trace: unknown[],
): Promise<{ candidates: Candidate[]; policies: string[] }> {
  const request = call.parsed.request;
  const routed = await rpc("routing", () =>
    deps.routing.route(
      {
        projectId: caller.project.id,
        tokenId: caller.token.id,
        estimatedInputTokens: call.estimatedInputTokens,
        requiredCapabilities: call.requiredCapabilities,
        maxTokens: request.maxTokens ?? 0,
        conversationId: caller.usageBase.sessionId,
        requestedModel: request.model,
        traceId: caller.traceId,
        promptExcerpt: lastUserText(request).slice(0, EXCERPT_CHARS),
      },
      { deadlineMs: deps.rpcDeadlineMs + routingModelAllowanceMs(caller) },
    ),
  );
  trace.push(...routed.trace);
  if (routed.candidates.length === 0)
    throw Errors.noCandidates("every model of the project was filtered out");
  return { candidates: routed.candidates, policies: routed.policies };
}

/**
 * Reserves the attempt's worst case; a refusal names the scope, metric, window and limit (a model's
 * own limit lets ingress try the next candidate). True when something is held and must be settled.
 */
export async function reserveAttempt(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  candidate: Candidate,
  model: ModelConfig,
  reservationId: string,
): Promise<boolean> {
  const answer = await rpc("budget", () =>
    deps.budget.reserve(
      {
        reservationId,
        projectId: caller.project.id,
        tokenId: caller.token.id,
        modelId: candidate.modelId,
        worstCase: {
          calls: 1,
          inputTokens: call.estimatedInputTokens,
          outputTokens: worstCaseOutputTokens(call.parsed.request.maxTokens ?? 0, model),
          costMicros: candidate.costEstimateMicros,
        },
      },
      { deadlineMs: deps.rpcDeadlineMs },
    ),
  );
  if (!answer.admitted)
    throw Errors.budgetExceeded(
      answer.blockedScope,
      answer.blockedMetric,
      answer.blockedWindow ? { label: answer.blockedWindow, limit: answer.blockedLimit } : undefined,
    );
  return answer.expiresAtMs > 0;
}

export async function settleAttempt(
  deps: IngressDeps,
  reservationId: string,
  usage: CallUsage,
  cost: number,
): Promise<void> {
  try {
    await deps.budget.settle(
      {
        reservationId,
        actual: {
          calls: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          costMicros: cost,
        },
      },
      { deadlineMs: deps.rpcDeadlineMs },
    );
  } catch (error) {
    // The reservation expires on its own; the usage record still carries the real numbers.
    deps.logger.warn({ err: error, reservationId }, "settle failed");
  }
}

/** Routing/budget unreachable or failing: the request is refused (fail closed), never sent unchecked. */
async function rpc<T>(service: "routing" | "budget", call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof RpcError && isRetryableRpcError(error)) throw Errors.serviceUnavailable(service);
    throw error;
  }
}

function lastUserText(request: CanonicalRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== "user") continue;
    const text = message.content
      .map((part) => (part.type === "text" ? part.text : ""))
      .join(" ")
      .trim();
    if (text) return text;
  }
  return "";
}

/** A budget refusal of a model's own limit: the next candidate may still be admitted. */
export function isModelScopeRefusal(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.code === "budget_exceeded" &&
    error.message.startsWith("Budget exhausted for model:")
  );
}
