import type { ModelConfig } from "@gw/config-store";
import { Errors, GatewayError, UpstreamError } from "@gw/errors";
import type { CanonicalResponse, ClientFormat, ParsedClientRequest, RenderContext } from "@gw/llm";
import { costMicros, worstCaseOutputTokens } from "@gw/pricing";
import type { Candidate } from "@gw/proto";
import { isRetryableRpcError, RpcError } from "@gw/rpc";
import type { FastifyReply } from "fastify";
import { recordUsage, type UsageFacts } from "../accounting/usage-record.js";
import type { IngressDeps } from "../deps.js";
import { clientStatusOf } from "../errors.js";
import type { CallerContext } from "./caller.js";
import { respondJson } from "./respond-json.js";
import { respondStream } from "./respond-stream.js";
import { assistantMessage } from "./stored-responses.js";
import { retryAfterMs, sendUpstream } from "./upstream-client.js";
import { planUpstream } from "./upstream-plan.js";
import { type CallUsage, NO_USAGE } from "./usage.js";

/** One client request on a proxy endpoint, parsed and sized, ready for the pipeline. */
export interface ProxyCall {
  format: ClientFormat;
  /** Canonical request; for `/v1/responses` with `previous_response_id` it includes the history. */
  parsed: ParsedClientRequest;
  /** The body as the client sent it, forwarded on the native paths. */
  rawBody: Record<string, unknown>;
  /** Client `anthropic-version` / `anthropic-beta` headers, forwarded on the native messages path. */
  anthropicHeaders: { version?: string; beta?: string };
  /** Counted with the tokenizer; the reservation's input size. */
  estimatedInputTokens: number;
  requiredCapabilities: string[];
}

/**
 * One proxy call through the spine: routing (candidates + trace) -> budget reserve (worst case,
 * every scope) -> upstream (native or translated) -> response in the client's format -> settle ->
 * usage record. Every path, refused or failed, ends in exactly one usage record. Fallback to the
 * next candidate arrives with the routing-engine issue; today the first candidate serves.
 */
export async function handleProxyCall(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  reply: FastifyReply,
): Promise<void> {
  const trace: unknown[] = [];
  const facts: UsageFacts = {
    ...caller.usageBase,
    attempt: 0,
    modelId: "",
    provider: "",
    ...NO_USAGE,
    costMicros: null,
    outcome: "error",
    status: 500,
    trace,
    errorMessage: "",
    streamed: call.parsed.request.stream,
  };
  try {
    const candidate = await pickCandidate(deps, caller, call, trace);
    const model = caller.project.models.find((m) => m.id === candidate.modelId);
    if (!model) throw Errors.noCandidates("the routed model is no longer assigned to the project");
    facts.modelId = model.id;
    facts.provider = model.provider;
    const reservationId = `${caller.traceId}-0`;
    await reserve(deps, caller, call, candidate, model, reservationId, facts);
    let usage: CallUsage = NO_USAGE;
    try {
      usage = await callUpstream(deps, caller, call, candidate, model, reply, trace, facts);
    } finally {
      // Settle to what was produced, success or not; the reservation never outlives the call.
      Object.assign(facts, usage);
      facts.costMicros = costMicros(model, usage);
      void settle(deps, reservationId, usage, facts.costMicros ?? 0);
    }
  } catch (error) {
    describeFailure(error, facts);
    throw error;
  } finally {
    recordUsage(deps.outbox, facts);
  }
}

async function pickCandidate(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  trace: unknown[],
): Promise<Candidate> {
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
      },
      { deadlineMs: deps.rpcDeadlineMs },
    ),
  );
  trace.push(...routed.trace);
  const first = routed.candidates[0];
  if (!first) throw Errors.noCandidates("every model of the project was filtered out");
  return first;
}

async function reserve(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  candidate: Candidate,
  model: ModelConfig,
  reservationId: string,
  facts: UsageFacts,
): Promise<void> {
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
  if (!answer.admitted) {
    facts.outcome = "budget_exceeded";
    throw Errors.budgetExceeded(answer.blockedScope, answer.blockedMetric);
  }
}

async function settle(
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

async function callUpstream(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  candidate: Candidate,
  model: ModelConfig,
  reply: FastifyReply,
  trace: unknown[],
  facts: UsageFacts,
): Promise<CallUsage> {
  const timeoutMs = caller.project.defaultTimeoutMs ?? deps.defaultTimeoutMs;
  const plan = planUpstream(
    call,
    model,
    model.apiKeyEncrypted ? deps.decryptApiKey(model.apiKeyEncrypted) : null,
  );
  const started = performance.now();
  const upstream = await sendUpstream({
    dispatcher: deps.upstream,
    http: plan.http,
    timeoutMs,
    signal: caller.signal,
  });
  trace.push({
    stage: "attempt",
    name: model.id,
    mode: plan.mode,
    outcome: upstream.status < 400 ? "success" : "error",
    status: upstream.status,
    latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
  });
  if (upstream.status >= 400) {
    const text = await upstream.body.text().catch(() => "");
    throw new UpstreamError({
      message: plan.adapter.errorMessage(upstream.status, text),
      status: upstream.status,
      body: text,
      ...optional("retryAfterMs", retryAfterMs(upstream.headers["retry-after"])),
    });
  }
  const context = renderContext(caller, call, model);
  const store = storeResponse(deps, caller, call, context);
  if (!call.parsed.request.stream) {
    const usage = await respondJson({ call, plan, upstream, reply, context, timeoutMs, beforeSend: store });
    facts.outcome = "success";
    facts.status = 200;
    return usage;
  }
  const result = await respondStream({
    caller,
    call,
    plan,
    upstream,
    reply,
    context,
    timeoutMs,
    traceInfo: {
      model: model.id,
      provider: model.provider,
      policies: caller.project.policies,
      costEstimate: candidate.costEstimateMicros / 1_000_000,
    },
    beforeEnd: store,
  });
  if (result.clientGone) {
    facts.outcome = "error";
    facts.status = 499; // nginx's "client closed request": the usage of what was produced is billed
    facts.errorMessage = "the client closed the connection before the stream ended";
  } else if (result.failure) {
    describeFailure(result.failure, facts);
  } else {
    facts.outcome = "success";
    facts.status = 200;
  }
  if (facts.errorMessage)
    deps.logger.info({ traceId: caller.traceId, reason: facts.errorMessage }, "stream ended early");
  return result.usage;
}

/** Ids in each format's own shape, derived from the trace id so a response leads to its trace. */
function renderContext(caller: CallerContext, call: ProxyCall, model: ModelConfig): RenderContext {
  const compact = caller.traceId.replaceAll("-", "");
  const ids = {
    chat: `chatcmpl-${caller.traceId}`,
    responses: `resp_${compact}`,
    messages: `msg_${compact}`,
  };
  const context: RenderContext = {
    id: ids[call.format.name],
    model: model.upstreamModel,
    created: Math.floor(caller.usageBase.startedAt / 1000),
  };
  if (call.parsed.previousResponseId) context.previousResponseId = call.parsed.previousResponseId;
  if (call.parsed.request.system) context.instructions = call.parsed.request.system;
  context.request = call.parsed.request;
  return context;
}

/**
 * `/v1/responses` keeps answers for `previous_response_id` unless `store: false`. Saved before the
 * client sees the end of the answer, so an immediate follow-up always finds it.
 */
function storeResponse(deps: IngressDeps, caller: CallerContext, call: ProxyCall, context: RenderContext) {
  if (call.format.name !== "responses" || call.parsed.store === false) return undefined;
  return async (response: CanonicalResponse | undefined) => {
    if (!response) return;
    try {
      await deps.responses.save(context.id, caller.project.id, [
        ...call.parsed.request.messages,
        assistantMessage(response),
      ]);
    } catch (error) {
      // The answer itself is still delivered; only a follow-up on it would fail.
      deps.logger.error({ err: error, responseId: context.id }, "storing the response failed");
    }
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** Fill outcome/status/message of the record from the error that ends the call. */
function describeFailure(error: unknown, facts: UsageFacts): void {
  const aborted = (error as Error)?.name === "AbortError";
  // 499: the client closed the connection (nginx's convention); nothing was answered.
  facts.status = aborted ? 499 : clientStatusOf(error);
  if (error instanceof GatewayError && error.code === "timeout") facts.outcome = "timeout";
  else if (!(error instanceof GatewayError && error.code === "budget_exceeded")) facts.outcome = "error";
  facts.errorMessage = (error as Error)?.message ?? "unknown error";
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
