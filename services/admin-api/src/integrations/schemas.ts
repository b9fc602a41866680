import { INTEGRATION_TYPES, IntegrationSettings, type IntegrationType, SECRET_FIELDS } from "@gw/metrics";
import { z } from "zod";
import { AdminErrors, fromZodError } from "../errors.js";

/**
 * Request bodies of `/api/integrations`, built per type from the one definition of a valid
 * integration (`IntegrationSettings` in @gw/metrics), so the API cannot accept a field the
 * exporter does not know. The body is checked in two steps: `type` first (its own clear 400),
 * then the strict schema of that type (unknown fields are refused, missing ones named).
 */

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const headerName = z.string().regex(HEADER_NAME);
// A line break in a value would let a stored header smuggle another one into the push request.
const headerValue = z
  .string()
  .max(8192, "must be at most 8192 characters")
  .refine((value) => !/[\r\n\0]/.test(value), "must not contain line breaks");

function uniqueNames(headers: Record<string, unknown>, context: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (seen.has(lower)) context.addIssue({ code: "custom", path: [name], message: "is given twice" });
    seen.add(lower);
  }
}

const createHeaders = z.record(headerName, headerValue).superRefine(uniqueNames);
/** In a PATCH, a header whose value is null keeps its stored value (sensitive values are answered as null). */
const patchHeaders = z.record(headerName, headerValue.nullable()).superRefine(uniqueNames);

const name = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");

const isSecret = (field: string) => (SECRET_FIELDS as readonly string[]).includes(field);

/** `z.string().default(x)` / `.optional()` -> the inner schema, to make it optional without a default. */
function withoutDefault(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional)
    return withoutDefault(schema.unwrap() as z.ZodType);
  return schema;
}

function createSchemaOf(type: IntegrationType) {
  const shape: Record<string, z.ZodType> = { ...IntegrationSettings[type].shape };
  if ("headers" in shape) shape.headers = createHeaders.optional();
  return z.strictObject({
    type: z.literal(type),
    name: name.optional(),
    enabled: z.boolean().optional(),
    ...shape,
  });
}

function patchSchemaOf(type: IntegrationType) {
  const shape: Record<string, z.ZodType> = {};
  for (const [field, schema] of Object.entries(
    IntegrationSettings[type].shape as Record<string, z.ZodType>,
  )) {
    if (isSecret(field)) shape[field] = z.string().nullable().optional();
    else if (field === "headers") shape[field] = patchHeaders.optional();
    else shape[field] = withoutDefault(schema).optional();
  }
  return z.strictObject({
    type: z.literal(type).optional(),
    name: name.optional(),
    enabled: z.boolean().optional(),
    ...shape,
  });
}

const CREATE = Object.fromEntries(INTEGRATION_TYPES.map((type) => [type, createSchemaOf(type)])) as Record<
  IntegrationType,
  ReturnType<typeof createSchemaOf>
>;
const PATCH = Object.fromEntries(INTEGRATION_TYPES.map((type) => [type, patchSchemaOf(type)])) as Record<
  IntegrationType,
  ReturnType<typeof patchSchemaOf>
>;

/** For the OpenAPI document: every type's body. */
export const createIntegrationBody = z.union(INTEGRATION_TYPES.map((type) => CREATE[type]));
export const patchIntegrationBody = z.union(INTEGRATION_TYPES.map((type) => PATCH[type]));

export type CreateIntegration = { type: IntegrationType; name?: string; enabled?: boolean } & Record<
  string,
  unknown
>;
export type PatchIntegration = { name?: string; enabled?: boolean } & Record<string, unknown>;

/** Zod's default texts never quote the received value (a secret could be one); these read better. */
export const messages: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
  if (issue.code === "invalid_key") return "is not a valid HTTP header name";
  return undefined;
};

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {}, { error: messages });
  if (!result.success) throw fromZodError(result.error);
  return result.data;
}

function assertObject(body: unknown): asserts body is Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw AdminErrors.invalid("The body must be a JSON object.");
}

export function parseCreate(body: unknown): CreateIntegration {
  assertObject(body);
  const type = body.type;
  if (type === undefined)
    throw AdminErrors.invalid(`type: is required (one of ${INTEGRATION_TYPES.join(", ")})`);
  if (!(INTEGRATION_TYPES as readonly unknown[]).includes(type))
    throw AdminErrors.invalid(`type: must be one of ${INTEGRATION_TYPES.join(", ")}`);
  // A client that copies an answer back sends its masked secrets as null: null means "not given".
  const given = Object.fromEntries(
    Object.entries(body).filter(([field, value]) => !(isSecret(field) && value === null)),
  );
  return parse(CREATE[type as IntegrationType], given) as CreateIntegration;
}

export function parsePatch(storedType: IntegrationType, body: unknown): PatchIntegration {
  assertObject(body);
  if (body.type !== undefined && body.type !== storedType)
    throw AdminErrors.invalid(
      `type: cannot change (this integration is ${storedType}); delete it and create a new one`,
      "integration_type_immutable",
    );
  const { type: _type, ...patch } = parse(PATCH[storedType], body) as Record<string, unknown>;
  return patch as PatchIntegration;
}

/** The settings part of a parsed create body (everything but type, name, enabled). */
export function settingsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { type: _type, name: _name, enabled: _enabled, ...settings } = body;
  return settings;
}
