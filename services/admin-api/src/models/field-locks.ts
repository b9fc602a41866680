import type { Model } from "@gw/db";
import { LOCKABLE_FIELDS, type LockableField, type UpdateModelBody } from "./model-schemas.js";
import { lockedFields, priceOf } from "./model-view.js";

/**
 * Field locking (SPEC "States and transitions"): a PUT that changes the value of a lockable field
 * locks it, so a later catalog sync keeps the operator's value; `fieldOverrides: { field: false }`
 * unlocks it, `{ field: true }` locks it without changing it. The explicit overrides of the body are
 * applied last: "set this price but keep following the catalog" is a request one can make.
 */
export function nextLocks(row: Model, body: UpdateModelBody): Set<LockableField> {
  const locked = body.fieldOverrides === null ? new Set<LockableField>() : lockedFields(row.fieldOverrides);
  for (const field of LOCKABLE_FIELDS) {
    if (body[field] === undefined) continue;
    if (comparable(field, body[field]) !== comparable(field, current(row, field))) locked.add(field);
  }
  for (const [field, lock] of Object.entries(body.fieldOverrides ?? {})) {
    if (lock) locked.add(field as LockableField);
    else locked.delete(field as LockableField);
  }
  return locked;
}

function current(row: Model, field: LockableField): unknown {
  switch (field) {
    case "inputPrice":
    case "outputPrice":
    case "cachePrice":
    case "cacheWritePrice":
      return priceOf(row[field]);
    default:
      return row[field];
  }
}

/**
 * One string per value, equal when the values are: capabilities as a set (their order means
 * nothing), tiers by their fields in a fixed order (JSON columns do not keep key order), an empty
 * tier list the same as none.
 */
function comparable(field: LockableField, value: unknown): string {
  if (field === "capabilities") return JSON.stringify([...((value as string[] | null) ?? [])].sort());
  if (field === "pricingTiers") {
    const tiers = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
    return JSON.stringify(
      tiers
        .map((t) => [t.fromTokens, t.inputPrice, t.outputPrice, t.cachePrice ?? null])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    );
  }
  return JSON.stringify(value ?? null);
}
