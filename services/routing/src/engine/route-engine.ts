import type { TraceEntry } from "@gw/proto";
import { FILTERS } from "./filters/index.js";
import { DEFAULT_POLICIES, POLICIES } from "./policies/index.js";
import { contextRequestCost } from "./pricing-tiers.js";
import { elapsedMs, traceEntry } from "./trace.js";
import type {
  RouteDecision,
  RoutingCandidate,
  RoutingContext,
  RoutingFilter,
  RoutingPolicy,
} from "./types.js";

/** Seams for tests and for later additions; production uses the defaults. */
export interface DecideRouteOptions {
  filters?: readonly RoutingFilter[];
  policies?: Record<string, RoutingPolicy>;
}

/** One score per applied policy, in policy order; null = that policy did not score the candidate. */
type ScoreVector = (number | null)[];

/**
 * Decide the candidates of one request and explain it: the filters drop what cannot serve it, the
 * project's policies (default `order`) score what is left, and the candidates are sorted by the
 * first policy's score, ties broken by the next policy, then by the project's model order. Empty
 * candidates mean every model was filtered out (the caller answers 503 no_candidates).
 */
export async function decideRoute(
  context: RoutingContext,
  options: DecideRouteOptions = {},
): Promise<RouteDecision> {
  const started = performance.now();
  const trace: TraceEntry[] = [];

  let models = context.project.models;
  for (const filter of options.filters ?? FILTERS) {
    const result = filter.apply(models, context);
    trace.push(...result.trace);
    models = result.kept;
  }

  const policies = resolvePolicies(context.project.policies, options.policies ?? POLICIES, trace);
  const names = policies.map((policy) => policy.name);
  if (models.length === 0) {
    trace.push(
      traceEntry({
        stage: "policy",
        name: "decision",
        outcome: "no_candidates",
        reason: "every model was filtered out",
        details: { policies: names },
        durationMs: elapsedMs(started),
      }),
    );
    return { candidates: [], trace, policies: names };
  }

  let candidates: RoutingCandidate[] = models.map((model) => ({
    model,
    costEstimateMicros: contextRequestCost(model, context).micros,
  }));
  const vectors = new Map<string, ScoreVector>();
  for (const candidate of candidates) vectors.set(candidate.model.id, []);
  for (const policy of policies) {
    const policyStarted = performance.now();
    const result = await evaluateSafely(policy, candidates, context);
    const exclusions = applyExclusions(policy.name, result.excluded, candidates);
    candidates = exclusions.kept;
    // Every entry of a policy carries the policy's own time (an llm call shows up here).
    const durationMs = elapsedMs(policyStarted);
    for (const entry of result.trace) trace.push({ ...entry, durationMs });
    for (const entry of exclusions.trace) trace.push({ ...entry, durationMs });
    for (const candidate of candidates) {
      const score = result.scores.get(candidate.model.id);
      // A score that is not a number cannot be compared: treat it as "not scored".
      vectors
        .get(candidate.model.id)
        ?.push(typeof score === "number" && Number.isFinite(score) ? score : null);
    }
  }

  // Sort keys looked up once per candidate, not once per comparison.
  const position = new Map<string, number>();
  context.project.models.forEach((model, index) => {
    position.set(model.id, index);
  });
  const keyed = candidates.map((candidate) => ({
    candidate,
    vector: vectors.get(candidate.model.id) ?? [],
    position: position.get(candidate.model.id) ?? 0,
  }));
  keyed.sort((a, b) => compareVectors(a.vector, b.vector) || a.position - b.position);
  const ordered = keyed.map((entry) => entry.candidate);
  trace.push(decisionEntry(ordered, names, vectors, elapsedMs(started)));
  return { candidates: ordered, trace, policies: names };
}

/**
 * The policies to apply, in the project's order (`order` when it names none). Names the registry
 * does not know (a typo, a policy from a newer version) are skipped and traced, never fatal; a
 * name given twice is applied once (its second pass could only repeat the first).
 */
function resolvePolicies(
  configured: readonly string[],
  registry: Record<string, RoutingPolicy>,
  trace: TraceEntry[],
): RoutingPolicy[] {
  const policies: RoutingPolicy[] = [];
  for (const name of configured.length > 0 ? configured : DEFAULT_POLICIES) {
    // Object.hasOwn: a name like "constructor" must not resolve to an Object.prototype member.
    const policy = Object.hasOwn(registry, name) ? registry[name] : undefined;
    if (!policy)
      trace.push(traceEntry({ stage: "policy", name, outcome: "ignored", reason: "unknown policy" }));
    else if (policies.includes(policy))
      trace.push(
        traceEntry({ stage: "policy", name, outcome: "ignored", reason: "duplicate policy: applied once" }),
      );
    else policies.push(policy);
  }
  return policies;
}

/** A policy that throws scores nothing: a broken policy must not fail a request the filters let through. */
async function evaluateSafely(
  policy: RoutingPolicy,
  candidates: RoutingCandidate[],
  context: RoutingContext,
) {
  try {
    return await policy.evaluate(candidates, context);
  } catch (error) {
    return {
      scores: new Map<string, number>(),
      excluded: new Map<string, string>(),
      trace: [
        traceEntry({
          stage: "policy",
          name: policy.name,
          outcome: "failed",
          reason: error instanceof Error ? error.message : String(error),
        }),
      ],
    };
  }
}

/**
 * Drop a policy's excluded candidates, one trace entry each; or keep them all, with one "ignored"
 * entry, when they would exclude every candidate (a policy narrows the choice, it never fails a
 * request). Later policies see only what is kept.
 */
function applyExclusions(
  policy: string,
  excluded: Map<string, string>,
  candidates: RoutingCandidate[],
): { kept: RoutingCandidate[]; trace: TraceEntry[] } {
  const hits = candidates.filter((c) => excluded.has(c.model.id));
  if (hits.length === 0) return { kept: candidates, trace: [] };
  if (hits.length === candidates.length)
    return {
      kept: candidates,
      trace: [
        traceEntry({
          stage: "policy",
          name: policy,
          outcome: "ignored",
          reason: "exclusions ignored: would leave no candidate",
          details: { excluded: Object.fromEntries(hits.map((c) => [c.model.id, excluded.get(c.model.id)])) },
        }),
      ],
    };
  return {
    kept: candidates.filter((c) => !excluded.has(c.model.id)),
    trace: hits.map((c) =>
      traceEntry({
        stage: "policy",
        name: policy,
        outcome: "excluded",
        reason: excluded.get(c.model.id) ?? "",
        modelId: c.model.id,
      }),
    ),
  };
}

/** Lexicographic: the first policy that tells two candidates apart decides; scored before unscored. */
function compareVectors(a: ScoreVector, b: ScoreVector): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return y - x;
  }
  return 0;
}

function decisionEntry(
  ordered: RoutingCandidate[],
  policies: string[],
  vectors: Map<string, ScoreVector>,
  durationMs: number,
): TraceEntry {
  const first = ordered[0]!;
  return traceEntry({
    stage: "policy",
    name: "decision",
    outcome: "selected",
    reason: `${first.model.id} first of ${ordered.length}`,
    modelId: first.model.id,
    details: {
      order: ordered.map((c) => c.model.id),
      policies,
      scores: Object.fromEntries(ordered.map((c) => [c.model.id, vectors.get(c.model.id) ?? []])),
      costEstimateMicros: Object.fromEntries(ordered.map((c) => [c.model.id, c.costEstimateMicros])),
    },
    durationMs,
  });
}
