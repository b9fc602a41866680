import type { UsageRow } from "./aggregate.js";

/**
 * PostgreSQL text and jsonb hold neither U+0000 nor a lone UTF-16 surrogate (a JSON parameter
 * carrying one is refused outright). Both can reach a record from a client (the request's `user`,
 * an upstream's error text), and a refused record would be redelivered until dead-lettered, its
 * usage never counted. They are replaced with U+FFFD instead, before anything is aggregated, so a
 * record and its rollup and end-user keys always agree.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters to replace.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storableText(text: string): string {
  return text.replace(UNSTORABLE, "\ufffd");
}

/** `JSON.stringify` replacer applying {@link storableText} to every string, nested ones included. */
export function storableJson(_key: string, value: unknown): unknown {
  return typeof value === "string" ? storableText(value) : value;
}

/** The row with its top-level strings storable (its JSON columns are cleaned when serialised). */
export function storableRow(row: UsageRow): UsageRow {
  let copy: UsageRow | undefined;
  for (const [key, value] of Object.entries(row)) {
    if (typeof value !== "string") continue;
    const clean = storableText(value);
    if (clean === value) continue;
    copy ??= { ...row };
    (copy as Record<string, unknown>)[key] = clean;
  }
  return copy ?? row;
}
