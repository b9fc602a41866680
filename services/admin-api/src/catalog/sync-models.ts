import { type Model, Prisma } from "@gw/db";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { LOCKABLE_FIELDS, type LockableField } from "../models/model-schemas.js";
import type { CatalogFileModel, CatalogProvider } from "./format.js";
import { getCatalog } from "./store.js";

const DECIMAL_FIELDS = new Set<LockableField>(["inputPrice", "outputPrice", "cachePrice", "cacheWritePrice"]);

/**
 * Brings every model row the catalog knows up to the catalog's values: each unlocked lockable field
 * takes the catalog value, and `catalogDefaults` records them all (locked or not) so the API can
 * show what a lock overrides. What the catalog leaves out (or gives as null, or as an empty
 * capability list, which means "unknown") is left as it is: a sync never erases a known value.
 * Rows changed meanwhile (by a user's update) are skipped, never overwritten; the next sync
 * picks them up.
 */
export async function syncModelsFromCatalog(deps: AdminDeps): Promise<{ updated: string[] }> {
  const byId = indexByModelId(await getCatalog(deps));
  if (byId.size === 0) return { updated: [] };
  const rows = await deps.prisma.model.findMany({ where: { id: { in: [...byId.keys()] } } });
  const updated: string[] = [];
  for (const row of rows) {
    const candidates = byId.get(row.id)!;
    const entry = candidates.find((c) => c.provider === row.provider) ?? candidates[0]!;
    const defaults = catalogDefaultsOf(entry.model);
    const data = unlockedChanges(row, defaults);
    const defaultsChanged = stableJson(row.catalogDefaults) !== stableJson(defaults);
    if (Object.keys(data).length === 0 && !defaultsChanged) continue;
    const { count } = await deps.prisma.model.updateMany({
      where: { id: row.id, updatedAt: row.updatedAt },
      data: { ...data, catalogDefaults: defaults as Prisma.InputJsonObject },
    });
    if (count === 0) continue;
    updated.push(row.id);
    publishConfigChange(deps, "model", row.id, "updated");
  }
  return { updated };
}

/**
 * The catalog's values of the lockable fields, every field present (null when the catalog does not
 * state it): the same shape the model API shows as `catalogDefaults`.
 */
export function catalogDefaultsOf(model: CatalogFileModel): Record<LockableField, unknown> {
  return {
    inputPrice: model.inputPrice ?? null,
    outputPrice: model.outputPrice ?? null,
    cachePrice: model.cachePrice ?? null,
    cacheWritePrice: model.cacheWritePrice ?? null,
    pricingTiers: model.pricingTiers ?? null,
    contextWindow: model.contextWindow ?? null,
    capabilities: model.capabilities ?? [],
  };
}

/** Fields locked by the row's `fieldOverrides` (`{ field: true }`). */
function lockedFields(fieldOverrides: unknown): Set<string> {
  if (typeof fieldOverrides !== "object" || fieldOverrides === null) return new Set();
  return new Set(
    Object.entries(fieldOverrides)
      .filter(([, locked]) => locked === true)
      .map(([field]) => field),
  );
}

function unlockedChanges(row: Model, defaults: Record<LockableField, unknown>) {
  const locked = lockedFields(row.fieldOverrides);
  const data: Record<string, unknown> = {};
  for (const field of LOCKABLE_FIELDS) {
    const value = defaults[field];
    if (locked.has(field) || value === undefined || value === null) continue;
    if (field === "capabilities" && (value as string[]).length === 0) continue;
    if (!sameValue(field, row[field], value)) data[field] = value;
  }
  return data;
}

function sameValue(field: LockableField, current: unknown, value: unknown): boolean {
  if (DECIMAL_FIELDS.has(field)) {
    // Compared at the column's scale (Decimal(24,12)), or a finer catalog price would never settle.
    return (
      current !== null &&
      new Prisma.Decimal(value as number).toDecimalPlaces(12).equals(current as Prisma.Decimal)
    );
  }
  // Capabilities are a set; an empty tier list is the same as none.
  if (field === "capabilities")
    return (
      stableJson([...((current as string[]) ?? [])].sort()) === stableJson([...(value as string[])].sort())
    );
  if (field === "pricingTiers") return stableJson(emptyAsNull(current)) === stableJson(emptyAsNull(value));
  return stableJson(current) === stableJson(value);
}

const emptyAsNull = (value: unknown) => (Array.isArray(value) && value.length === 0 ? null : value);

function indexByModelId(providers: CatalogProvider[]) {
  const byId = new Map<string, { provider: string; model: CatalogFileModel }[]>();
  for (const provider of providers)
    for (const model of provider.models) {
      const list = byId.get(model.id) ?? [];
      list.push({ provider: provider.id, model });
      byId.set(model.id, list);
    }
  return byId;
}

/** JSON with sorted keys: jsonb does not keep key order, so plain stringify would see changes. */
function stableJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
