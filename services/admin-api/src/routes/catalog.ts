import type { FastifyInstance } from "fastify";
import { catalogStatus, getCatalog, reloadCatalog } from "../catalog/store.js";
import { syncModelsFromCatalog } from "../catalog/sync-models.js";
import type { AdminDeps } from "../deps.js";

/**
 * The provider catalog (SPEC "Settings and catalog"): the merged catalog, each repository's status,
 * and a refresh that fetches every enabled repository now and syncs the models it prices.
 */
export function registerCatalogRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/providers", { config: { permission: "model:read" } }, async () => ({
    providers: await getCatalog(deps),
  }));

  api.get("/catalog/status", { config: { permission: "settings:read" } }, async () => catalogStatus(deps));

  api.post(
    "/catalog/refresh",
    { config: { permission: "settings:write", action: "catalog:refresh" } },
    async (request) => {
      const loaded = await reloadCatalog(deps);
      const fetched = loaded.attempted.length - loaded.errors.length;
      // Every repository failing leaves only the built-in catalog (and last good copies): syncing
      // from that could put back prices a repository had changed, so models are left alone.
      const allFailed = loaded.attempted.length > 0 && fetched === 0;
      const { updated } = allFailed ? { updated: [] } : await syncModelsFromCatalog(deps);
      request.auditDetails = {
        repos: loaded.attempted.length,
        failed: loaded.errors.length,
        modelsUpdated: updated.length,
      };
      const message = refreshMessage(loaded.attempted.length, fetched, allFailed, updated.length);
      if (loaded.errors.length === 0) return { ok: true, message };
      return { ok: false, message, errors: loaded.errors };
    },
  );
}

function refreshMessage(attempted: number, fetched: number, allFailed: boolean, updated: number): string {
  const models = `${updated} model${updated === 1 ? "" : "s"} updated from the catalog`;
  if (attempted === 0) return `No provider repository is enabled: the built-in catalog is used; ${models}.`;
  if (allFailed)
    return `No provider repository could be fetched (${attempted} tried): models were not synced.`;
  return `Fetched ${fetched} of ${attempted} provider ${attempted === 1 ? "repository" : "repositories"}; ${models}.`;
}
