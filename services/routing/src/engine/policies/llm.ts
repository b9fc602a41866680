import { DEFAULT_ROUTING_MODEL_TIMEOUT_MS } from "@gw/config-store";
import type { PolicyResult, RoutingPolicy } from "../types.js";
import { type CandidateScore, policyEntry, positionScores, scoresEntry } from "./scoring.js";

/** How long a request waits for the routing model when the project sets no `routing.llm.timeoutMs`. */
export const DEFAULT_LLM_TIMEOUT_MS = DEFAULT_ROUTING_MODEL_TIMEOUT_MS;

/** Error reasons are cut to this length in the trace (they come from an upstream, keep them short). */
const MAX_REASON_LENGTH = 200;

class RoutingModelTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`routing model timed out after ${timeoutMs} ms`);
  }
}

/**
 * Runs the call with an AbortSignal that fires after `timeoutMs`, and stops waiting then even if
 * the call ignores its signal: a slow routing model delays the request by at most the timeout.
 */
async function callWithTimeout<T>(call: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new RoutingModelTimeout(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    // Promise.resolve().then: a call that throws synchronously becomes a rejection like any other.
    return await Promise.race([Promise.resolve().then(() => call(controller.signal)), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function noScores(outcome: string, reason: string, details: Record<string, unknown>): PolicyResult {
  return { scores: new Map(), excluded: new Map(), trace: [policyEntry("llm", outcome, reason, details)] };
}

function errorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > MAX_REASON_LENGTH ? `${message.slice(0, MAX_REASON_LENGTH)}...` : message;
}

/**
 * Ask the project's routing model (`project.routing.llm`) to rank the candidates for this prompt;
 * the call itself (prompt, the routing model's own fallbacks, its usage record with callType
 * "routing") is `context.callRoutingModel`'s business. Candidates score by the rank the model gave
 * them; ids it invents are ignored; candidates it leaves out get no score (after the named ones).
 * The routing model is an advisor, never a dependency: when it is not configured, times out,
 * fails or answers nonsense, the policy scores nothing and the next policy or the project order
 * decides. It never throws.
 */
export const llmPolicy: RoutingPolicy = {
  name: "llm",
  async evaluate(candidates, context) {
    const config = context.project.routing.llm;
    const call = context.callRoutingModel;
    if (!config || !call)
      return noScores("skipped", "not configured", {
        routingModel: config?.modelId ?? null,
        callable: call !== undefined,
      });
    const timeoutMs =
      config.timeoutMs !== undefined && Number.isFinite(config.timeoutMs) && config.timeoutMs > 0
        ? config.timeoutMs
        : DEFAULT_LLM_TIMEOUT_MS;
    const base = { routingModel: config.modelId, timeoutMs };

    let answer: unknown;
    try {
      answer = await callWithTimeout(
        (signal) =>
          call({
            project: context.project,
            candidates: candidates.map((candidate) => candidate.model),
            features: context.features,
            signal,
          }),
        timeoutMs,
      );
    } catch (error) {
      const timeout = error instanceof RoutingModelTimeout;
      return noScores("failed", errorReason(error), { ...base, error: timeout ? "timeout" : "error" });
    }
    if (!Array.isArray(answer))
      return noScores("failed", "the routing model's answer is not a list of model ids", {
        ...base,
        error: "invalid_answer",
      });

    const candidateIds = new Set(candidates.map((candidate) => candidate.model.id));
    const named: string[] = [];
    const unknownIds: unknown[] = [];
    for (const id of answer) {
      if (typeof id === "string" && candidateIds.has(id)) {
        if (!named.includes(id)) named.push(id);
      } else unknownIds.push(id);
    }
    const details = { ...base, answer, ranked: named, unknownIds };
    if (named.length === 0) return noScores("failed", "the routing model named no candidate", details);

    const scores = positionScores(named);
    const rankOf = new Map(named.map((id, index) => [id, index + 1]));
    const traced: CandidateScore[] = candidates.map(({ model }) => {
      const score = scores.get(model.id);
      const rank = rankOf.get(model.id);
      if (score === undefined || rank === undefined)
        return { modelId: model.id, score: null, reason: "not named by the routing model" };
      return { modelId: model.id, score, reason: `ranked ${rank} by the routing model`, rank };
    });
    const trace = [
      scoresEntry("llm", `the routing model ranked ${named.length} of ${candidates.length}`, traced, details),
    ];
    return { scores, excluded: new Map(), trace };
  },
};
