import { type BudgetCounter, budgetCounter, collectScopes, type ScopeBudget } from "@gw/budgets";
import type { ConfigStore, ModelConfig, ProjectConfig } from "@gw/config-store";
import { RpcError, status } from "@gw/rpc";

export interface RequestScopes {
  project: ProjectConfig;
  model: ModelConfig | null;
  scopes: ScopeBudget[];
  /** `counters[i]` is where `scopes[i]` counts at the request's time. */
  counters: BudgetCounter[];
}

/**
 * Every budget a call is checked against, from the cached configuration: no database query on the
 * hot path once warm. An unknown token or model adds no scope (the project still binds the call);
 * an unknown project is a caller bug and answers NOT_FOUND.
 */
export async function requestScopes(
  configStore: ConfigStore,
  ids: { projectId: string; tokenId: string; modelId: string },
  now: number,
): Promise<RequestScopes> {
  const [project, token, model, groups] = await Promise.all([
    configStore.projectById(ids.projectId),
    ids.tokenId ? configStore.tokenById(ids.tokenId) : null,
    ids.modelId ? configStore.modelById(ids.modelId) : null,
    configStore.spendGroups(),
  ]);
  if (!project) throw new RpcError(status.NOT_FOUND, `unknown project ${ids.projectId}`);
  const scopes = collectScopes({ project, token, model, groups });
  return { project, model, scopes, counters: scopes.map((scope) => budgetCounter(scope, now)) };
}
