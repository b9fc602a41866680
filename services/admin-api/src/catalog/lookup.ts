import type { AdminDeps } from "../deps.js";

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
 * fetched), or null when the catalog does not know it. Filled in by the catalog work.
 */
export async function findCatalogModel(_deps: AdminDeps, _modelId: string): Promise<CatalogModel | null> {
  return null;
}
