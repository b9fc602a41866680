import type { EventPublisher } from "@gw/accounting";
import type { ConfigStore, ModelConfig } from "@gw/config-store";
import type { CounterStore } from "@gw/counters";
import type { Logger } from "@gw/logger";
import type { AttemptReport, Candidate, RouteRequest, RouteResponse, TraceEntry } from "@gw/proto";
import { type BudgetState, readBudgetState } from "./budget-state.js";
import { decideRoute, pricesFor, type RoutingCandidate, type RoutingModelCall } from "./engine/index.js";
import type { HealthSettings, HealthStore, ModelHealth } from "./health/index.js";

export interface RoutingDeps {
  configStore: ConfigStore;
  health: HealthStore;
  /** The budget counters: models' own limits and monthly volumes (libs/budgets keys). */
  counters: CounterStore;
  events: EventPublisher;
  logger: Logger;
  /** The `llm` policy's routing model; undefined where it cannot be called. */
  callRoutingModel?: RoutingModelCall;
  now?: () => number;
  random?: () => number;
}

/**
 * `Route`: the project's models filtered and ordered by the engine (filters, then the project's
 * policies), with worst-case cost estimates and the trace of every step. Shared health comes from
 * the counter store; when it cannot be read the request is still routed (without health) rather
 * than failed, and the trace says so.
 */
export async function route(deps: RoutingDeps, request: RouteRequest): Promise<RouteResponse> {
  const project = await deps.configStore.projectById(request.projectId);
  if (!project)
    return {
      candidates: [],
      trace: [entry("filter", "project", "excluded", "unknown project")],
      policies: [],
    };
  const now = (deps.now ?? Date.now)();
  const pre: TraceEntry[] = [];
  let health = new Map<string, ModelHealth>();
  try {
    health = await deps.health.snapshot(
      project.models.map((m) => m.id),
      projectHealthSettings(project.routing.health),
    );
  } catch (error) {
    deps.logger.warn({ err: error }, "health state unavailable; routing without it");
    pre.push(
      entry("health", "snapshot", "unavailable", "shared health could not be read; routed without it"),
    );
  }
  let budgets: BudgetState = { exhausted: new Set(), monthlyTokens: new Map() };
  try {
    budgets = await readBudgetState(deps.counters, project.models, now);
  } catch (error) {
    // The budget service still refuses a model over its own limit at reserve time (and ingress
    // then tries the next candidate): routing without this read loses no enforcement.
    deps.logger.warn({ err: error }, "budget counters unavailable; routing without model limits and volumes");
    pre.push(
      entry(
        "budget",
        "snapshot",
        "unavailable",
        "model limits and volumes could not be read; enforced at reserve",
      ),
    );
  }
  const decision = await decideRoute({
    project,
    features: {
      estimatedInputTokens: Number(request.estimatedInputTokens),
      requiredCapabilities: request.requiredCapabilities,
      maxTokens: Number(request.maxTokens),
      conversationId: request.conversationId,
      promptExcerpt: request.promptExcerpt,
      tokenId: request.tokenId,
      traceId: request.traceId,
    },
    health,
    budgetExhausted: budgets.exhausted,
    monthlyTokens: budgets.monthlyTokens,
    now,
    random: deps.random ?? Math.random,
    ...(deps.callRoutingModel ? { callRoutingModel: deps.callRoutingModel } : {}),
  });
  if (decision.candidates.length === 0) {
    deps.events.publish({
      event: "routing.no_candidates",
      severity: "critical",
      projectId: project.id,
      details: {
        modelId: "",
        projectSlug: project.slug,
        excluded: decision.trace
          .filter((t) => t.outcome === "excluded")
          .map((t) => ({ modelId: t.modelId, reason: t.reason })),
      },
    });
  }
  return {
    candidates: decision.candidates.map((candidate) => toCandidate(candidate, budgets.monthlyTokens)),
    trace: [...pre, ...decision.trace],
    policies: decision.policies,
  };
}

/** `ReportOutcome`: one attempt into the shared health; the state changes it causes become events. */
export async function reportOutcome(deps: RoutingDeps, report: AttemptReport): Promise<void> {
  const project = await deps.configStore.projectById(report.projectId);
  const kind = report.kind === "rate_limited" || report.kind === "error" ? report.kind : "success";
  const events = await deps.health.record(
    {
      modelId: report.modelId,
      projectId: report.projectId,
      kind,
      status: report.status,
      latencyMs: report.latencyMs,
      ...(Number(report.retryAfterMs) > 0 ? { retryAfterMs: Number(report.retryAfterMs) } : {}),
      ...(report.reason ? { reason: report.reason.slice(0, 300) } : {}),
    },
    projectHealthSettings(project?.routing.health),
  );
  for (const event of events) deps.events.publish(event);
}

function toCandidate(candidate: RoutingCandidate, monthlyTokens: Map<string, number>): Candidate {
  const model: ModelConfig = candidate.model;
  const { tier } = pricesFor(model, monthlyTokens.get(model.id) ?? 0);
  return {
    modelId: model.id,
    provider: model.provider,
    upstreamModel: model.upstreamModel,
    costEstimateMicros: candidate.costEstimateMicros ?? 0,
    priced: candidate.costEstimateMicros !== null,
    ...(tier
      ? {
          tier: {
            fromTokens: tier.fromTokens,
            inputPrice: tier.inputPrice,
            outputPrice: tier.outputPrice,
            ...(tier.cachePrice !== undefined ? { cachePrice: tier.cachePrice } : {}),
          },
        }
      : {}),
  };
}

function entry(stage: string, name: string, outcome: string, reason: string): TraceEntry {
  return { stage, name, outcome, reason, modelId: "", detailsJson: "", durationMs: 0 };
}

/**
 * The health settings a project may tune. The window, bucket and half-life stay deployment-wide:
 * health data is per model and shared by every project, so projects with different buckets would
 * miss each other's counts.
 */
const PROJECT_HEALTH_SETTINGS = ["minCalls", "errorRateThreshold", "openMs", "defaultCooldownMs"] as const;

function projectHealthSettings(overrides: Record<string, number> | undefined): Partial<HealthSettings> {
  const settings: Partial<HealthSettings> = {};
  for (const name of PROJECT_HEALTH_SETTINGS)
    if (overrides?.[name] !== undefined) settings[name] = overrides[name];
  return settings;
}
