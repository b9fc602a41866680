import type { CatalogFile, CatalogFileModel, CatalogProvider } from "./format.js";

/**
 * Merges catalogs in order (built-in first, then each repository as configured): providers by id,
 * models by id within a provider. A later layer wins: its provider name, and its whole entry for a
 * model (a partial entry would mix prices of two sources). Order is kept: first appearance.
 */
export function mergeCatalogs(layers: readonly CatalogFile[]): CatalogProvider[] {
  const providers = new Map<string, { name: string; models: Map<string, CatalogFileModel> }>();
  for (const layer of layers) {
    for (const provider of layer.providers) {
      const merged = providers.get(provider.id) ?? { name: provider.name, models: new Map() };
      merged.name = provider.name;
      for (const model of provider.models) merged.models.set(model.id, model);
      providers.set(provider.id, merged);
    }
  }
  return [...providers].map(([id, { name, models }]) => ({ id, name, models: [...models.values()] }));
}
