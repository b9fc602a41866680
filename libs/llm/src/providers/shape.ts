/**
 * Small readers for provider JSON of unknown shape. Provider bodies are parsed from the network, so
 * every access goes through these instead of casts: a missing or mistyped field reads as undefined
 * (or 0 for counts) and never leaks a TypeError.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function record(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

export function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function string(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A token count: finite numbers only, anything else is 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Drops undefined values so request bodies carry only the fields that were set. */
export function compact<T extends JsonRecord>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}
