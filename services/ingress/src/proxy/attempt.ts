import type { UsageFacts } from "@gw/accounting";
import type { ModelConfig } from "@gw/config-store";
import { GatewayError, UpstreamError } from "@gw/errors";
import type { CanonicalResponse, RenderContext } from "@gw/llm";
import type { Candidate } from "@gw/proto";
import type { FastifyReply } from "fastify";
import type { IngressDeps } from "../deps.js";
import type { CallerContext } from "./caller.js";
import { describeFailure } from "./failure.js";
import type { ProxyCall } from "./proxy-call.js";
import { respondJson } from "./respond-json.js";
import { respondStream } from "./respond-stream.js";
import { assistantMessage } from "./stored-responses.js";
import { retryAfterMs, sendUpstream } from "./upstream-client.js";
import { planUpstream } from "./upstream-plan.js";
import type { CallUsage } from "./usage.js";

/**
 * One upstream attempt on one candidate: plan (native or translated), send, report the outcome to
 * the shared health, then answer the client. Throws before anything reaches the client when the
 * provider fails (so the caller may fall back to the next candidate); after the first byte a
 * failure ends the stream in the format's error event and is returned in `facts`.
 */
export async function runAttempt(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  target: { candidate: Candidate; model: ModelConfig; policies: string[] },
  reply: FastifyReply,
  trace: unknown[],
  facts: UsageFacts,
): Promise<CallUsage> {
  const { candidate, model } = target;
  const timeoutMs =
    caller.project.defaultTimeoutMs ??
    (await deps.configStore.runtimeSettings()).defaultTimeoutMs ??
    deps.defaultTimeoutMs;
  const plan = planUpstream(
    call,
    model,
    model.apiKeyEncrypted ? deps.decryptApiKey(model.apiKeyEncrypted) : null,
  );
  const started = performance.now();
  const report = (kind: "success" | "error" | "rate_limited", status: number, reason: string, after = 0) =>
    deps.outcomes.report({
      projectId: caller.project.id,
      modelId: model.id,
      kind,
      status,
      latencyMs: performance.now() - started,
      retryAfterMs: after,
      reason,
      traceId: caller.traceId,
    });
  const attemptTrace = (outcome: string, status: number, reason: string) =>
    trace.push({
      stage: "attempt",
      name: model.id,
      modelId: model.id,
      mode: plan.mode,
      outcome,
      status,
      reason,
      latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
  let upstream: Awaited<ReturnType<typeof sendUpstream>>;
  try {
    upstream = await sendUpstream({
      dispatcher: deps.upstream,
      http: plan.http,
      timeoutMs,
      signal: caller.signal,
    });
  } catch (error) {
    // Timeout or network failure before any answer; a client abort says nothing about the model.
    if ((error as Error)?.name !== "AbortError") {
      report("error", 0, (error as Error).message);
      attemptTrace(
        error instanceof GatewayError && error.code === "timeout" ? "timeout" : "error",
        0,
        (error as Error).message,
      );
    }
    throw error;
  }
  if (upstream.status >= 400) {
    const text = await upstream.body.text().catch(() => "");
    const after = retryAfterMs(upstream.headers["retry-after"]);
    const message = plan.adapter.errorMessage(upstream.status, text);
    if (upstream.status === 429) report("rate_limited", 429, message, after ?? 0);
    else if (countsAgainstHealth(upstream.status)) report("error", upstream.status, message);
    attemptTrace("error", upstream.status, message);
    throw new UpstreamError({
      message,
      status: upstream.status,
      body: text,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    });
  }
  report("success", upstream.status, "");
  attemptTrace("success", upstream.status, "");
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
      policies: target.policies,
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
  if (facts.errorMessage || result.failure)
    deps.logger.info(
      { traceId: caller.traceId, reason: facts.errorMessage || result.failure?.message },
      "stream ended early",
    );
  return result.usage;
}

/** Answers that say something about the model's health: server errors and rejected credentials. */
function countsAgainstHealth(status: number): boolean {
  return status >= 500 || status === 401 || status === 403;
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
    request: call.parsed.request,
  };
  if (call.parsed.previousResponseId) context.previousResponseId = call.parsed.previousResponseId;
  if (call.parsed.request.system) context.instructions = call.parsed.request.system;
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
