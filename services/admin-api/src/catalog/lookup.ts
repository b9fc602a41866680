import type { AdminDeps } from "../deps.js";
import { BUILTIN_CATALOG } from "./builtin-catalog.js";
import type { CatalogProvider } from "./format.js";
import { getCatalog } from "./store.js";

/** A model as the provider catalog describes it (SPEC "Catalog"). USD per 1,000 tokens. */
export interface CatalogModel {
  id: string;
  name: string;
  provider: string;
  contextWindow: number | null;
  inputPrice: number | null;
  outputPrice: number | null;
  cachePrice?: number | null;
  cacheWritePrice?: number | null;
  pricingTiers?: { fromTokens: number; inputPrice: number; outputPrice: number; cachePrice?: number }[];
  capabilities: string[];
}

/**
 * The catalog entry of a model id (from the cached catalog: the built-in one until a repo is
 * fetched), or null when the catalog does not know it. Never throws: when the catalog cannot be
 * loaded (settings unreadable), the built-in catalog answers. The first provider listing the id wins.
 */
export async function findCatalogModel(deps: AdminDeps, modelId: string): Promise<CatalogModel | null> {
  let providers: CatalogProvider[];
  try {
    providers = await getCatalog(deps);
  } catch (error) {
    deps.logger.warn({ err: error }, "catalog unavailable; looking up the built-in catalog");
    providers = BUILTIN_CATALOG.providers;
  }
  for (const provider of providers) {
    const model = provider.models.find((m) => m.id === modelId);
    if (model) return { ...model, provider: provider.id };
  }
  return null;
}
