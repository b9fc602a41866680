import { Errors, type GatewayError } from "@gw/errors";

/**
 * Small validators shared by the three request parsers. Client bodies are untrusted JSON: every
 * read goes through `own` (so `__proto__` / `constructor` keys and inherited properties are never
 * mistaken for fields) and every wrong type becomes a 400 that names the field, never a TypeError.
 * `null` counts as absent for optional fields: SDKs and clients commonly send explicit nulls for
 * "not set" (the OpenAI API documents most optional fields as nullable).
 */

export type JsonObject = Record<string, unknown>;

export function bad(message: string): GatewayError {
  return Errors.badRequest(message);
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The field's value only when it is the object's own property. */
export function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `null` / `undefined`: the field was not set. */
export function absent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** A user-supplied value quoted in an error message: short, so a hostile value cannot bloat it. */
export function quote(value: unknown): string {
  const text = typeof value === "string" ? value : String(typeof value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

export function expectBody(body: unknown): JsonObject {
  if (!isObject(body)) throw bad("The request body must be a JSON object.");
  return body;
}

export function expectObject(value: unknown, path: string): JsonObject {
  if (!isObject(value)) throw bad(`\`${path}\` must be an object.`);
  return value;
}

export function expectArray(value: unknown, path: string, nonEmpty = false): unknown[] {
  if (!Array.isArray(value)) throw bad(`\`${path}\` must be ${nonEmpty ? "a non-empty array" : "an array"}.`);
  if (nonEmpty && value.length === 0) throw bad(`\`${path}\` must be a non-empty array.`);
  return value;
}

export function expectString(value: unknown, path: string): string {
  if (typeof value !== "string") throw bad(`\`${path}\` must be a string.`);
  return value;
}

/** A required name-like string (tool names, ids): present and not empty. */
export function expectName(value: unknown, path: string): string {
  if (typeof value !== "string" || value.length === 0) throw bad(`\`${path}\` must be a non-empty string.`);
  return value;
}

export function optionalString(value: unknown, path: string): string | undefined {
  return absent(value) ? undefined : expectString(value, path);
}

export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== "boolean") throw bad(`\`${path}\` must be a boolean.`);
  return value;
}

export function optionalNumber(value: unknown, path: string): number | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw bad(`\`${path}\` must be a number.`);
  return value;
}

export function optionalPositiveInteger(value: unknown, path: string): number | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw bad(`\`${path}\` must be a positive integer.`);
  }
  return value;
}

/** A JSON-schema-like object (tool parameters, response schemas); kept by reference, not walked. */
export function optionalSchema(value: unknown, path: string): JsonObject | undefined {
  if (absent(value)) return undefined;
  return expectObject(value, path);
}

/** `stop`-like fields: one string or an array of strings, as a list. */
export function optionalStringList(value: unknown, path: string): string[] | undefined {
  if (absent(value)) return undefined;
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) throw bad(`\`${path}\` must be a string or an array of strings.`);
  return value.map((item, index) => expectString(item, `${path}[${index}]`));
}

/**
 * JSON text of a client value (tool-call arguments sent as an object). A value too deeply nested
 * to serialize would throw a RangeError deep in the stack; it is a bad request instead.
 */
export function jsonText(value: unknown, path: string): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    throw bad(`\`${path}\` cannot be serialized (too deeply nested).`);
  }
}

/** The `model` every format carries; optional here because routing may choose without it. */
export function optionalModel(body: JsonObject): string {
  return optionalString(own(body, "model"), "model") ?? "";
}
