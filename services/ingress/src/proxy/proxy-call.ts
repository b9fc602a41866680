import { publishEvent, recordUsage, type UsageFacts } from "@gw/accounting";
import { Errors } from "@gw/errors";
import type { ClientFormat, ParsedClientRequest } from "@gw/llm";
import { costMicros } from "@gw/pricing";
import type { FastifyReply } from "fastify";
import type { IngressDeps } from "../deps.js";
import { runAttempt } from "./attempt.js";
import { callPrices } from "./call-prices.js";
import type { CallerContext } from "./caller.js";
import { describeFailure, worthAnotherCandidate } from "./failure.js";
import { isModelScopeRefusal, reserveAttempt, routeCandidates, settleAttempt } from "./service-calls.js";
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

/** Upstream attempts per request when the project does not say (the first try included). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * One proxy call through the spine: routing (ordered candidates + trace) -> for each candidate in
 * turn: budget reserve (worst case, every scope) -> upstream (native or translated) -> response in
 * the client's format -> settle. A candidate that fails before anything reached the client
 * (network, timeout, 429, 5xx, rejected key, a model's own budget) hands over to the next one,
 * up to the project's `routing.maxAttempts`; after the first byte there is no silent switch.
 * Every path, refused or failed, ends in exactly one usage record, whose trace lists each attempt.
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
  const skipped: { modelId: string; reason: string }[] = [];
  try {
    const { candidates, policies } = await routeCandidates(deps, caller, call, trace);
    const maxAttempts = Math.min(
      candidates.length,
      caller.project.routing.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    );
    for (let index = 0; ; index++) {
      const candidate = candidates[index]!;
      const model = caller.project.models.find((m) => m.id === candidate.modelId);
      const isLast = index + 1 >= maxAttempts;
      try {
        if (!model) throw Errors.noCandidates("the routed model is no longer assigned to the project");
        facts.modelId = model.id;
        facts.provider = model.provider;
        // A failed attempt produced nothing: $0 on a priced model (null stays "unpriced").
        facts.costMicros = costMicros(callPrices(candidate, model), NO_USAGE);
        const usage = await attempt(
          deps,
          caller,
          call,
          { candidate, model, policies },
          reply,
          trace,
          facts,
          index,
        );
        Object.assign(facts, usage);
        facts.costMicros = costMicros(callPrices(candidate, model), usage);
        break;
      } catch (error) {
        const sentAnything = reply.sent || reply.raw.headersSent;
        if (isLast || sentAnything || !(worthAnotherCandidate(error) || isModelScopeRefusal(error)))
          throw error;
        skipped.push({ modelId: candidate.modelId, reason: (error as Error).message });
        trace.push({
          stage: "fallback",
          name: candidate.modelId,
          outcome: "skipped",
          reason: (error as Error).message,
        });
      }
    }
  } catch (error) {
    describeFailure(error, facts);
    throw error;
  } finally {
    if (skipped.length > 0) {
      facts.trace.push({
        stage: "fallback",
        name: "summary",
        outcome: facts.outcome,
        attempts: skipped.length + 1,
      });
      publishEvent(deps.outbox, {
        event: "routing.fallback_used",
        severity: "info",
        projectId: caller.project.id,
        details: { modelId: facts.modelId, skipped, traceId: caller.traceId },
      });
    }
    recordUsage(deps.outbox, facts);
  }
}

/** Reserve, call, settle: the reservation of an attempt never outlives it, success or not. */
async function attempt(
  deps: IngressDeps,
  caller: CallerContext,
  call: ProxyCall,
  target: Parameters<typeof runAttempt>[3],
  reply: FastifyReply,
  trace: unknown[],
  facts: UsageFacts,
  index: number,
): Promise<CallUsage> {
  const reservationId = `${caller.traceId}-${index}`;
  const held = await reserveAttempt(deps, caller, call, target.candidate, target.model, reservationId);
  let usage: CallUsage = NO_USAGE;
  try {
    usage = await runAttempt(deps, caller, call, target, reply, trace, facts);
    return usage;
  } finally {
    // Nothing held (no budget applies to this call): nothing to settle, no round trip.
    if (held)
      void settleAttempt(
        deps,
        reservationId,
        usage,
        costMicros(callPrices(target.candidate, target.model), usage) ?? 0,
      );
  }
}
