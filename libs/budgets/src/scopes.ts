import type {
  BudgetConfig,
  ModelConfig,
  ProjectConfig,
  SpendGroupConfig,
  TokenConfig,
} from "@gw/config-store";

/**
 * The scopes a request is counted and checked against (DESIGN.md section 3): the token's limits,
 * the project's budgets, every spend group up the chain of the project's groups and of the groups
 * naming the token, and the model's own limits. A token limit in `override` mode turns the project
 * budget of the same metric and window into count-only for that call (the project's figures stay
 * true; it just does not refuse the token's calls).
 */

export type ScopeLevel = "token" | "project" | "group" | "model";

export interface ScopeBudget {
  level: ScopeLevel;
  /** Id of the token, project, group or model. */
  scopeId: string;
  /** Human name for messages and events: token name, project slug, group name, model id. */
  name: string;
  budget: BudgetConfig;
  /** False: counted but never refuses (a project budget overridden by the token's limit). */
  enforced: boolean;
}

export interface ScopeInput {
  project: ProjectConfig;
  token: TokenConfig | null;
  model: ModelConfig | null;
  groups: SpendGroupConfig[];
}

/**
 * Order matters: the first refusing scope is the one named, and a refusal by the model's own limit
 * (the only one another candidate can escape) must only be reported when every wider scope admits,
 * so the model comes last.
 */
export function collectScopes({ project, token, model, groups }: ScopeInput): ScopeBudget[] {
  const scopes: ScopeBudget[] = [];
  const overridden = new Set(
    (token?.limits ?? []).filter((limit) => limit.mode === "override").map((limit) => windowOf(limit)),
  );
  if (token) for (const budget of token.limits) push(scopes, "token", token.id, token.name, budget, true);
  for (const budget of project.budgets)
    push(scopes, "project", project.id, project.slug, budget, !overridden.has(windowOf(budget)));
  for (const group of groupChain(project, token, groups))
    for (const budget of group.limits) push(scopes, "group", group.id, group.name, budget, true);
  if (model) for (const budget of model.limits) push(scopes, "model", model.id, model.id, budget, true);
  return scopes;
}

/**
 * The groups binding this request, each once: the project's own group (`spendGroupId`), groups
 * listing the project or the token, then every ancestor of those. A cycle in hand-edited data
 * (the API forbids one) is cut at the first repeat instead of looping.
 */
export function groupChain(
  project: ProjectConfig,
  token: TokenConfig | null,
  groups: SpendGroupConfig[],
): SpendGroupConfig[] {
  if (groups.length === 0) return [];
  const byId = new Map(groups.map((group) => [group.id, group]));
  const chain: SpendGroupConfig[] = [];
  const seen = new Set<string>();
  const climb = (start: SpendGroupConfig | undefined) => {
    for (let group = start; group && !seen.has(group.id); group = byId.get(group.parentGroupId ?? "")) {
      seen.add(group.id);
      chain.push(group);
    }
  };
  if (project.spendGroupId) climb(byId.get(project.spendGroupId));
  for (const group of groups) {
    if (group.projectIds.includes(project.id) || (token !== null && group.tokenIds.includes(token.id)))
      climb(group);
  }
  return chain;
}

/** Same metric and window: what an `override` replaces, and what makes two budgets one counter. */
function windowOf(budget: BudgetConfig): string {
  return `${budget.metric}:${budget.windowType}:${budget.windowSize}`;
}

/**
 * Two budgets of one scope on the same metric and window share one counter: the stricter limit
 * wins (adding both would count the call twice).
 */
function push(
  scopes: ScopeBudget[],
  level: ScopeLevel,
  scopeId: string,
  name: string,
  budget: BudgetConfig,
  enforced: boolean,
): void {
  const twin = scopes.find(
    (scope) =>
      scope.level === level && scope.scopeId === scopeId && windowOf(scope.budget) === windowOf(budget),
  );
  if (!twin) {
    scopes.push({ level, scopeId, name, budget, enforced });
    return;
  }
  if (budget.limit < twin.budget.limit) twin.budget = budget;
  twin.enforced ||= enforced;
}
