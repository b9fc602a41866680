import type { ConfigStore, ModelConfig, ProjectConfig } from "@gw/config-store";
import { costMicros, worstCaseOutputTokens } from "@gw/pricing";
import type { Candidate, RouteRequest, RouteResponse, TraceEntry } from "@gw/proto";

/**
 * Pick the ordered candidates for one request. This is the skeleton of the routing engine: the
 * `enabled` filter, the project's model order, worst-case cost estimates and a trace entry for
 * every step. Capability/context/budget/cooldown filters and the policies (health, cheapest,
 * random, llm) plug in here with the routing-engine issue.
 */
export async function route(configStore: ConfigStore, request: RouteRequest): Promise<RouteResponse> {
  const started = performance.now();
  const project = await configStore.projectById(request.projectId);
  if (!project)
    return {
      candidates: [],
      trace: [traceEntry("filter", "project", "excluded", "unknown project")],
      policies: [],
    };

  const trace: TraceEntry[] = [];
  const enabled: ModelConfig[] = [];
  for (const model of project.models) {
    if (model.enabled) enabled.push(model);
    else trace.push(traceEntry("filter", "enabled", "excluded", "model is disabled", model.id));
  }
  trace.push(
    traceEntry(
      "filter",
      "enabled",
      "passed",
      `${enabled.length} of ${project.models.length} models enabled`,
      "",
      {
        candidates: enabled.map((m) => m.id),
      },
    ),
  );
  const candidates = enabled.map((model) => toCandidate(model, request));
  trace.push(
    traceEntry("policy", "order", "selected", "project model order", candidates[0]?.modelId ?? "", {
      order: candidates.map((c) => c.modelId),
      configuredPolicies: project.policies,
      durationMs: performance.now() - started,
    }),
  );
  return { candidates, trace, policies: policiesOf(project) };
}

function policiesOf(project: ProjectConfig): string[] {
  return project.policies.length > 0 ? project.policies : ["order"];
}

/** Worst case: the counted input, and output bounded by max_tokens, else the model's output limit. */
function toCandidate(model: ModelConfig, request: RouteRequest): Candidate {
  const cost = costMicros(model, {
    inputTokens: request.estimatedInputTokens,
    outputTokens: worstCaseOutputTokens(request.maxTokens, model),
  });
  return {
    modelId: model.id,
    provider: model.provider,
    upstreamModel: model.upstreamModel,
    costEstimateMicros: cost ?? 0,
    priced: cost !== null,
  };
}

function traceEntry(
  stage: string,
  name: string,
  outcome: string,
  reason: string,
  modelId = "",
  details?: Record<string, unknown>,
): TraceEntry {
  return {
    stage,
    name,
    outcome,
    reason,
    modelId,
    detailsJson: details ? JSON.stringify(details) : "",
    durationMs: 0,
  };
}
