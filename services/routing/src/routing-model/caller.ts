import { randomUUID } from "node:crypto";
import type { ModelConfig } from "@gw/config-store";
import { DEFAULT_ROUTING_MODEL_TIMEOUT_MS } from "@gw/config-store";
import {
  adapterFor,
  type CanonicalRequest,
  type CanonicalResponse,
  type CanonicalUsage,
  countRequestTokens,
  type ProviderAdapter,
  type UpstreamHttpRequest,
} from "@gw/llm";
import { costMicros } from "@gw/pricing";
import type { BudgetServiceService, UsageAmounts } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";
import { type Dispatcher, request, errors as undiciErrors } from "undici";
import type { RoutingModelCall } from "../engine/types.js";
import { parseRanking } from "./parse-ranking.js";
import { buildRoutingRequest, ROUTING_MAX_TOKENS } from "./prompt.js";

/**
 * The `llm` policy's routing-model call. The routing model is an LLM call like any proxy call: it
 * goes to the provider's own API through the provider adapter, is reserved (worst case) and settled
 * (real usage) against the budgets of the request's project and token, and leaves a usage record
 * (`callType: "routing"`, written by `recordUsage`). The project's routing model is tried first,
 * then its fallbacks, until one answers with a readable ranking; when none does the call throws an
 * Error naming each failure, which the policy turns into "no scores" (a routing model never fails
 * the user's request). The incoming signal (the policy's time limit) aborts the upstream call and
 * stops the fallbacks.
 */

export interface RoutingModelDeps {
  modelById(id: string): Promise<ModelConfig | null>;
  decryptApiKey(stored: string): string;
  /** undici Dispatcher (keep-alive pool). */
  dispatcher: Dispatcher;
  budget: AsyncClient<typeof BudgetServiceService>;
  /** Called exactly once per routing-model attempt that reached the budget step, success or not. */
  recordUsage(usage: RoutingModelUsage): void;
  logger: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
  now?: () => number;
}

export interface RoutingModelUsage {
  traceId: string;
  projectId: string;
  projectSlug: string;
  tokenId: string;
  modelId: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  costMicros: number | null;
  outcome: "success" | "error" | "budget_exceeded" | "timeout";
  status: number;
  durationMs: number;
  errorMessage: string;
  /** 0 for the first routing model, 1.. for fallbacks, so each attempt has its own record id. */
  attempt: number;
}

/** The upstream time limit when the project sets no `routing.llm.timeoutMs` (the policy's default). */
export const DEFAULT_ROUTING_TIMEOUT_MS = DEFAULT_ROUTING_MODEL_TIMEOUT_MS;

/** Error messages in usage records and the thrown Error are cut to this length per attempt. */
const MAX_MESSAGE = 300;

const ZERO: UsageAmounts = { calls: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 };

type Outcome = RoutingModelUsage["outcome"];

/** One attempt's end: the ranking, or why not and whether the next routing model may be tried. */
type AttemptResult = { ranking: string[] } | { failure: string; stop: boolean };

interface CallScope {
  projectId: string;
  projectSlug: string;
  tokenId: string;
  traceId: string;
  request: CanonicalRequest;
  inputTokens: number;
  candidateIds: string[];
  timeoutMs: number;
  signal: AbortSignal;
}

export function createRoutingModelCaller(deps: RoutingModelDeps): RoutingModelCall {
  const now = deps.now ?? (() => performance.now());

  return async ({ project, candidates, features, signal }) => {
    const llm = project.routing.llm;
    if (!llm?.modelId) throw new Error("no routing model is configured (routing.llm.modelId)");
    if (candidates.length === 0) return [];
    const request = buildRoutingRequest({ candidates, features, customPrompt: llm.prompt });
    const scope: CallScope = {
      projectId: project.id,
      projectSlug: project.slug,
      tokenId: features.tokenId,
      // Reservation and record ids derive from it: never share them across requests.
      traceId: features.traceId || randomUUID(),
      request,
      inputTokens: countRequestTokens(request),
      candidateIds: candidates.map((model) => model.id),
      timeoutMs:
        llm.timeoutMs !== undefined && Number.isFinite(llm.timeoutMs) && llm.timeoutMs > 0
          ? llm.timeoutMs
          : DEFAULT_ROUTING_TIMEOUT_MS,
      signal,
    };
    const modelIds = [...new Set([llm.modelId, ...(llm.fallbackModelIds ?? [])])];
    const failures: string[] = [];
    let stopped = "";
    for (const [attempt, modelId] of modelIds.entries()) {
      if (stopped || signal.aborted) {
        failures.push(`${modelId}: not tried (${stopped || abortReason(signal)})`);
        continue;
      }
      const result = await tryRoutingModel(deps, now, scope, modelId, attempt);
      if ("ranking" in result) return result.ranking;
      failures.push(`${modelId}: ${result.failure}`);
      if (result.stop) stopped = `after ${modelId}: ${result.failure}`;
    }
    throw new Error(`no routing model answered: ${failures.join("; ")}`);
  };
}

async function tryRoutingModel(
  deps: RoutingModelDeps,
  now: () => number,
  scope: CallScope,
  modelId: string,
  attempt: number,
): Promise<AttemptResult> {
  const started = now();
  const logContext = { traceId: scope.traceId, projectId: scope.projectId, routingModel: modelId, attempt };
  const skip = (reason: string): AttemptResult => {
    deps.logger.warn({ ...logContext, reason }, "routing model skipped");
    return { failure: reason, stop: false };
  };

  // ---- resolve and prepare: failures here never reach the budget, so leave no usage record ----
  let model: ModelConfig | null;
  try {
    model = await deps.modelById(modelId);
  } catch (error) {
    return skip(`model lookup failed: ${messageOf(error)}`);
  }
  if (!model) return skip("unknown model");
  if (!model.enabled) return skip("model is disabled");
  let prepared: { adapter: ProviderAdapter; http: UpstreamHttpRequest; apiKey: string | null };
  try {
    prepared = prepare(model, scope.request, deps.decryptApiKey);
  } catch (error) {
    return skip(messageOf(error));
  }
  const { adapter, http, apiKey } = prepared;
  const clean = (text: string) => cut(apiKey ? text.replaceAll(apiKey, "[redacted]") : text);

  const record = (outcome: Outcome, status: number, errorMessage: string, usage?: CanonicalUsage) => {
    const counts = {
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      cacheTokens: usage?.cacheReadTokens ?? 0,
    };
    deps.recordUsage({
      traceId: scope.traceId,
      projectId: scope.projectId,
      projectSlug: scope.projectSlug,
      tokenId: scope.tokenId,
      modelId: model.id,
      provider: model.provider,
      ...counts,
      costMicros: costMicros(model, counts),
      outcome,
      status,
      durationMs: Math.max(0, Math.round(now() - started)),
      errorMessage,
      attempt,
    });
  };
  const fail = (
    outcome: Outcome,
    status: number,
    message: string,
    stop: boolean,
    usage?: CanonicalUsage,
  ): AttemptResult => {
    const errorMessage = clean(message);
    record(outcome, status, errorMessage, usage);
    deps.logger.warn({ ...logContext, outcome, status, reason: errorMessage }, "routing model failed");
    return { failure: errorMessage, stop };
  };

  // ---- budget: the worst case of this call on the request's project and token ----
  const reservationId = `${scope.traceId}-routing-${attempt}`;
  try {
    const answer = await deps.budget.reserve({
      reservationId,
      projectId: scope.projectId,
      tokenId: scope.tokenId,
      modelId: model.id,
      worstCase: {
        calls: 1,
        inputTokens: scope.inputTokens,
        outputTokens: ROUTING_MAX_TOKENS,
        costMicros:
          costMicros(model, { inputTokens: scope.inputTokens, outputTokens: ROUTING_MAX_TOKENS }) ?? 0,
      },
    });
    if (!answer.admitted)
      return fail(
        "budget_exceeded",
        503,
        `budget exhausted for ${answer.blockedScope || "a scope"} (${answer.blockedMetric || "unknown metric"})`,
        false,
      );
  } catch (error) {
    // Fail closed like ingress: no routing call goes out unchecked. The next model would meet the same service.
    return fail("error", 503, `budget service unavailable: ${messageOf(error)}`, true);
  }
  const settle = (actual: UsageAmounts) => {
    // Not awaited: the ranking need not wait for the bookkeeping. A lost settle only lets the
    // reservation expire on its own; the usage record still carries the real numbers.
    void (async () => {
      try {
        await deps.budget.settle({ reservationId, actual });
      } catch (error) {
        deps.logger.warn(
          { ...logContext, err: messageOf(error), reservationId },
          "routing model settle failed",
        );
      }
    })();
  };
  if (scope.signal.aborted) {
    settle(ZERO);
    return fail("timeout", 504, abortReason(scope.signal), true);
  }

  // ---- the call itself ----
  let status: number;
  let text: string;
  try {
    const response = await request(http.url, {
      method: "POST",
      headers: http.headers,
      body: http.body,
      dispatcher: deps.dispatcher,
      signal: scope.signal,
      headersTimeout: scope.timeoutMs,
      bodyTimeout: scope.timeoutMs,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    settle(ZERO);
    if (scope.signal.aborted) return fail("timeout", 504, abortReason(scope.signal), true);
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError)
      return fail("timeout", 504, `the routing model did not answer within ${scope.timeoutMs} ms`, false);
    return fail("error", 502, `upstream unreachable: ${messageOf(error)}`, false);
  }
  if (status >= 400) {
    settle(ZERO);
    return fail("error", status, adapter.errorMessage(status, text), false);
  }
  let answer: CanonicalResponse;
  try {
    answer = adapter.parseResponse(JSON.parse(text));
  } catch (error) {
    settle(ZERO);
    return fail("error", 502, `the provider's answer could not be read: ${messageOf(error)}`, false);
  }

  // ---- billed from the provider's own count, then the ranking read ----
  const usage = answer.usage;
  settle({
    calls: 1,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    costMicros:
      costMicros(model, {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheTokens: usage.cacheReadTokens,
      }) ?? 0,
  });
  const answerText = answer.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("")
    .trim();
  let ranking: string[];
  try {
    ranking = parseRanking(answerText, scope.candidateIds);
  } catch (error) {
    return fail("error", 502, messageOf(error), false, usage);
  }
  record("success", status, "", usage);
  deps.logger.debug(
    { ...logContext, ranking, durationMs: Math.round(now() - started) },
    "routing model ranked the candidates",
  );
  return { ranking };
}

/** Adapter, base URL, decrypted key and the provider's own request; throws a message safe to log. */
function prepare(
  model: ModelConfig,
  request: CanonicalRequest,
  decryptApiKey: (stored: string) => string,
): { adapter: ProviderAdapter; http: UpstreamHttpRequest; apiKey: string | null } {
  const adapter = adapterFor(model.provider);
  const base = model.baseUrl ?? adapter.defaultBaseUrl;
  if (!base) throw new Error(`provider kind "${model.provider}" needs a baseUrl`);
  let apiKey: string | null = null;
  if (model.apiKeyEncrypted) {
    try {
      apiKey = decryptApiKey(model.apiKeyEncrypted);
    } catch {
      // The cause may quote the stored secret: not repeated.
      throw new Error("its API key could not be decrypted");
    }
  }
  const target = { baseUrl: base.replace(/\/+$/, ""), upstreamModel: model.upstreamModel, apiKey };
  let http: UpstreamHttpRequest;
  try {
    http = adapter.buildRequest(request, target);
  } catch (error) {
    throw new Error(`the ${adapter.kind} request could not be built: ${messageOf(error)}`);
  }
  return { adapter, http, apiKey };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message) return reason.message;
  return "the routing call was aborted (time limit)";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}...` : text;
}
