import type { ModelConfig } from "@gw/config-store";
import { Errors, GatewayError, UpstreamError } from "@gw/errors";
import { costMicros, worstCaseOutputTokens } from "@gw/pricing";
import type { Candidate } from "@gw/proto";
import { isRetryableRpcError, RpcError } from "@gw/rpc";
import type { FastifyReply } from "fastify";
import { recordUsage, type UsageFacts } from "../accounting/usage-record.js";
import type { IngressDeps } from "../deps.js";
import { clientStatusOf } from "../errors.js";
import type { CallerContext } from "./caller.js";
import type { ChatRequest } from "./chat-request.js";
import { relaySse, type StreamTally } from "./sse-relay.js";
import { mapTransportError, postJson, retryAfterMs, upstreamBaseUrl } from "./upstream-client.js";
import { type CallUsage, NO_USAGE, usageFromOpenAi } from "./usage.js";

/**
 * One chat completion through the spine: routing (candidates + trace) -> budget reserve (worst
 * case, every scope) -> upstream -> response -> settle -> usage record. Every path, refused or
 * failed, ends in exactly one usage record. Fallback to the next candidate arrives with the
 * routing-engine issue; today the first candidate serves.
 */
export async function handleChatCompletion(
  deps: IngressDeps,
  caller: CallerContext,
  chat: ChatRequest,
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
    streamed: chat.stream,
  };
  try {
    const candidate = await pickCandidate(deps, caller, chat, trace);
    const model = caller.project.models.find((m) => m.id === candidate.modelId);
    if (!model) throw Errors.noCandidates("the routed model is no longer assigned to the project");
    facts.modelId = model.id;
    facts.provider = model.provider;
    const reservationId = `${caller.traceId}-0`;
    await reserve(deps, caller, chat, candidate, model, reservationId, facts);
    let usage: CallUsage = NO_USAGE;
    try {
      usage = await callUpstream(deps, caller, chat, model, reply, trace, facts);
      facts.outcome = "success";
      facts.status = 200;
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
  chat: ChatRequest,
  trace: unknown[],
): Promise<Candidate> {
  const routed = await rpc("routing", () =>
    deps.routing.route(
      {
        projectId: caller.project.id,
        tokenId: caller.token.id,
        estimatedInputTokens: chat.estimatedInputTokens,
        requiredCapabilities: [],
        maxTokens: chat.maxTokens,
        conversationId: caller.usageBase.sessionId,
        requestedModel: chat.requestedModel,
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
  chat: ChatRequest,
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
          inputTokens: chat.estimatedInputTokens,
          outputTokens: worstCaseOutputTokens(chat.maxTokens, model),
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
  chat: ChatRequest,
  model: ModelConfig,
  reply: FastifyReply,
  trace: unknown[],
  facts: UsageFacts,
): Promise<CallUsage> {
  const timeoutMs = caller.project.defaultTimeoutMs ?? deps.defaultTimeoutMs;
  const body: Record<string, unknown> = { ...chat.body, model: model.upstreamModel };
  if (chat.stream)
    body.stream_options = { ...(chat.body.stream_options as object | undefined), include_usage: true };
  const started = performance.now();
  const upstream = await postJson({
    dispatcher: deps.upstream,
    url: `${upstreamBaseUrl(model)}/chat/completions`,
    apiKey: model.apiKeyEncrypted ? deps.decryptApiKey(model.apiKeyEncrypted) : null,
    body: JSON.stringify(body),
    timeoutMs,
    signal: caller.signal,
  });
  trace.push({
    stage: "attempt",
    name: model.id,
    outcome: upstream.status < 400 ? "success" : "error",
    status: upstream.status,
    latencyMs: performance.now() - started,
  });
  if (upstream.status >= 400) {
    const text = await upstream.body.text().catch(() => "");
    throw upstreamFailure(upstream.status, text, upstream.headers["retry-after"]);
  }
  if (chat.stream) return streamToClient(deps, caller, upstream.body, reply, facts, timeoutMs);
  const text = await upstream.body.text().catch((error: unknown) => {
    throw mapTransportError(error, timeoutMs);
  });
  const usage = usageFromJson(text);
  await reply.code(200).header("content-type", "application/json").send(text);
  return usage;
}

function usageFromJson(text: string): CallUsage {
  try {
    return usageFromOpenAi((JSON.parse(text) as { usage?: unknown }).usage) ?? NO_USAGE;
  } catch {
    throw Errors.upstream("The provider answered with a body that is not JSON.");
  }
}

async function streamToClient(
  deps: IngressDeps,
  caller: CallerContext,
  body: AsyncIterable<Buffer>,
  reply: FastifyReply,
  facts: UsageFacts,
  timeoutMs: number,
): Promise<CallUsage> {
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string> = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  };
  if (caller.traceHeader) headers["x-service-trace-id"] = caller.traceId;
  res.writeHead(200, headers);
  if (!caller.noTraceEvent) res.write(`data: ${JSON.stringify(traceEvent(caller, facts))}\n\n`);
  const tally: StreamTally = { usage: undefined, contentChars: 0, sawDone: false };
  try {
    await relaySse(body, res, tally);
  } catch (error) {
    // After the first byte there is no silent switch: the stream ends with an error event.
    const mapped = mapTransportError(error, timeoutMs);
    if (!res.destroyed)
      res.write(
        `data: ${JSON.stringify({ error: { message: mapped.message, type: "upstream_error", code: "stream_interrupted" } })}\n\n`,
      );
    facts.errorMessage = mapped.message;
  } finally {
    res.end();
  }
  if (!tally.sawDone && !facts.errorMessage) facts.errorMessage = "stream ended before completion";
  if (facts.errorMessage)
    deps.logger.info({ traceId: caller.traceId, reason: facts.errorMessage }, "stream ended early");
  // Without a usage chunk (cut short), bill what was produced: ~4 characters per token.
  return tally.usage ?? { inputTokens: 0, outputTokens: Math.ceil(tally.contentChars / 4), cacheTokens: 0 };
}

/** The first SSE event: chunk-shaped so SDKs skip it (`choices: []`), plus the routing summary. */
function traceEvent(caller: CallerContext, facts: UsageFacts) {
  return {
    id: `chatcmpl-${caller.traceId}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: facts.modelId,
    choices: [],
    type: "trace",
    provider: facts.provider,
    policies: caller.project.policies,
    costEstimate: 0,
  };
}

function upstreamFailure(status: number, body: string, retryAfter: string | string[] | undefined): Error {
  const after = retryAfterMs(retryAfter);
  return new UpstreamError({
    message: `provider answered ${status}`,
    status,
    body,
    ...(after !== undefined ? { retryAfterMs: after } : {}),
  });
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
