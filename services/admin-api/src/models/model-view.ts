import type { Model } from "@gw/db";
import type { CatalogModel } from "../catalog/lookup.js";
import { LOCKABLE_FIELDS, type LockableField } from "./model-schemas.js";

/** Prisma Decimal (or null) as the number the API shows. */
export function priceOf(value: { toNumber(): number } | null): number | null {
  return value === null ? null : value.toNumber();
}

/** The locked fields of a stored `fieldOverrides` (hand-edited rows may hold anything else: ignored). */
export function lockedFields(json: unknown): Set<LockableField> {
  const locked = new Set<LockableField>();
  if (typeof json !== "object" || json === null || Array.isArray(json)) return locked;
  for (const field of LOCKABLE_FIELDS)
    if ((json as Record<string, unknown>)[field] === true) locked.add(field);
  return locked;
}

/** `{ field: true, ... }` in LOCKABLE_FIELDS order, or null when nothing is locked (the column is cleared). */
export function overridesObject(locked: Set<LockableField>): Record<string, true> | null {
  const fields = LOCKABLE_FIELDS.filter((field) => locked.has(field));
  return fields.length === 0 ? null : Object.fromEntries(fields.map((field) => [field, true as const]));
}

/** The catalog's values of the lockable fields: what a catalog sync would write. */
function catalogDefaultsOf(entry: CatalogModel) {
  return {
    inputPrice: entry.inputPrice ?? null,
    outputPrice: entry.outputPrice ?? null,
    cachePrice: entry.cachePrice ?? null,
    cacheWritePrice: entry.cacheWritePrice ?? null,
    pricingTiers: entry.pricingTiers ?? null,
    contextWindow: entry.contextWindow ?? null,
    capabilities: entry.capabilities ?? [],
  };
}

/**
 * A model as the API shows it: every column but the encrypted key, which is only reported as
 * `hasApiKey` (the key itself is masked as `apiKey: null`, SPEC "Model"). `fieldOverrides` appears
 * only when a field is locked, `catalogDefaults` only when the catalog knows the model.
 */
export function modelView(row: Model, catalog: CatalogModel | null) {
  const overrides = overridesObject(lockedFields(row.fieldOverrides));
  return {
    id: row.id,
    provider: row.provider,
    upstreamModel: row.upstreamModel,
    apiKey: null,
    hasApiKey: row.apiKeyEncrypted !== null,
    inputPrice: priceOf(row.inputPrice),
    outputPrice: priceOf(row.outputPrice),
    cachePrice: priceOf(row.cachePrice),
    cacheWritePrice: priceOf(row.cacheWritePrice),
    pricingTiers: row.pricingTiers,
    contextWindow: row.contextWindow,
    maxOutputTokens: row.maxOutputTokens,
    capabilities: row.capabilities,
    limits: row.limits,
    enabled: row.enabled,
    baseUrl: row.baseUrl,
    ...(overrides ? { fieldOverrides: overrides } : {}),
    ...(catalog ? { catalogDefaults: catalogDefaultsOf(catalog) } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
