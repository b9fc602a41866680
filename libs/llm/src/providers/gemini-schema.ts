import { isRecord, type JsonRecord } from "./shape.js";

/**
 * Gemini's `parameters` / `responseSchema` take an OpenAPI 3.0 subset, not full JSON Schema, and
 * answer 400 to keywords outside it (`additionalProperties`, `$schema`, `$ref`, `const`, ...).
 * This keeps what the subset has, inlines local `$ref`s, turns `const` into a one-value `enum`
 * and JSON Schema's null unions (`type: [T, "null"]`, `anyOf: [T, {type: "null"}]`) into
 * `nullable`, and drops the rest.
 */

const KEPT = [
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "example",
  "default",
  "propertyOrdering",
] as const;

/** A recursive schema is unrolled this many `$ref`s deep, then ends in a plain object. */
const MAX_REF_EXPANSIONS = 3;

/** A tool's `parameters`; undefined for a tool without parameters (Gemini refuses an empty object schema). */
export function geminiParameters(schema: Record<string, unknown>): JsonRecord | undefined {
  const converted = geminiSchema(schema);
  if (!converted) return undefined;
  const properties = converted.properties;
  if (converted.type === "object" && (!isRecord(properties) || Object.keys(properties).length === 0))
    return undefined;
  return converted;
}

export function geminiSchema(schema: unknown): JsonRecord | undefined {
  if (!isRecord(schema)) return undefined;
  const defs = {
    ...(isRecord(schema.definitions) ? schema.definitions : {}),
    ...(isRecord(schema.$defs) ? schema.$defs : {}),
  };
  return convert(schema, defs, 0);
}

function convert(input: JsonRecord, defs: JsonRecord, expansions: number): JsonRecord {
  let schema = input;
  let depth = expansions;
  // A local `#/$defs/X` or `#/definitions/X` reference is replaced by its target (siblings kept).
  while (typeof schema.$ref === "string") {
    if (depth >= MAX_REF_EXPANSIONS) return { type: "object" };
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name === undefined ? undefined : defs[decodeURIComponent(name)];
    const { $ref: _ref, ...siblings } = schema;
    schema = isRecord(target) ? { ...target, ...siblings } : siblings;
    depth++;
  }
  const out: JsonRecord = {};

  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== "null");
    if (types.length < schema.type.length) out.nullable = true;
    if (typeof types[0] === "string") out.type = types[0];
  } else if (typeof schema.type === "string") {
    out.type = schema.type;
  }
  for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.const !== undefined) out.enum = [schema.const];

  if (isRecord(schema.properties)) {
    const properties: JsonRecord = {};
    for (const [name, value] of Object.entries(schema.properties))
      if (isRecord(value)) properties[name] = convert(value, defs, depth);
    out.properties = properties;
    out.type ??= "object";
  }
  if (Array.isArray(schema.required))
    out.required = schema.required.filter((name) => typeof name === "string");
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  if (isRecord(items)) out.items = convert(items, defs, depth);

  const union = (
    Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : []
  ).filter(isRecord);
  if (union.length > 0) {
    const variants = union.filter((variant) => variant.type !== "null");
    if (variants.length < union.length) out.nullable = true;
    if (variants.length === 1 && variants[0]) Object.assign(out, convert(variants[0], defs, depth));
    else if (variants.length > 1) out.anyOf = variants.map((variant) => convert(variant, defs, depth));
  }
  if (Array.isArray(schema.allOf))
    for (const part of schema.allOf.filter(isRecord)) Object.assign(out, convert(part, defs, depth));
  return out;
}
