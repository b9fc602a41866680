import { type Model, Prisma, type PrismaClient } from "@gw/db";
import { encryptSecret } from "@gw/security";
import { AdminError, AdminErrors } from "../errors.js";
import { nextLocks } from "./field-locks.js";
import {
  type CreateModelBody,
  LOCKABLE_FIELDS,
  type LockableField,
  type UpdateModelBody,
} from "./model-schemas.js";
import { overridesObject } from "./model-view.js";

/** A nullable JSON column takes Prisma's DbNull, not `null`, to store SQL NULL. */
const jsonOrNull = <T>(value: T | null) =>
  value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);

/** A custom provider has no default host: it cannot be routed to without a `baseUrl`. */
export function assertBaseUrl(provider: string, baseUrl: string | null): void {
  if (provider === "custom" && !baseUrl)
    throw AdminErrors.invalid("baseUrl: is required for a custom provider");
}

/** The row of a new model; the key is encrypted here and nowhere else. */
export function createData(body: CreateModelBody, secretKey: Buffer): Prisma.ModelCreateInput {
  const locks = new Set(
    Object.entries(body.fieldOverrides ?? {})
      .filter(([, lock]) => lock)
      .map(([field]) => field as LockableField),
  );
  return {
    id: body.id,
    provider: body.provider,
    upstreamModel: body.upstreamModel ?? null,
    apiKeyEncrypted: body.apiKey ? encryptSecret(body.apiKey, secretKey) : null,
    inputPrice: body.inputPrice ?? null,
    outputPrice: body.outputPrice ?? null,
    cachePrice: body.cachePrice ?? null,
    cacheWritePrice: body.cacheWritePrice ?? null,
    pricingTiers: jsonOrNull(body.pricingTiers ?? null),
    contextWindow: body.contextWindow ?? null,
    maxOutputTokens: body.maxOutputTokens ?? null,
    capabilities: body.capabilities ?? [],
    limits: body.limits ?? [],
    enabled: body.enabled,
    baseUrl: body.baseUrl ?? null,
    fieldOverrides: jsonOrNull(overridesObject(locks)),
  };
}

/** A new upstream key, encrypted; nothing else of the model changes. */
export function rotateKeyData(apiKey: string, secretKey: Buffer): Prisma.ModelUpdateManyMutationInput {
  return { apiKeyEncrypted: encryptSecret(apiKey, secretKey) };
}

/** The columns a PUT changes: only the fields it sends, plus the recomputed locks. */
export function updateData(
  row: Model,
  body: UpdateModelBody,
  secretKey: Buffer,
): Prisma.ModelUpdateManyMutationInput {
  const data: Prisma.ModelUpdateManyMutationInput = {};
  if (body.provider !== undefined) data.provider = body.provider;
  if (body.upstreamModel !== undefined) data.upstreamModel = body.upstreamModel;
  if (body.apiKey !== undefined)
    data.apiKeyEncrypted = body.apiKey === null ? null : encryptSecret(body.apiKey, secretKey);
  for (const field of ["inputPrice", "outputPrice", "cachePrice", "cacheWritePrice"] as const)
    if (body[field] !== undefined) data[field] = body[field];
  if (body.pricingTiers !== undefined) data.pricingTiers = jsonOrNull(body.pricingTiers);
  if (body.contextWindow !== undefined) data.contextWindow = body.contextWindow;
  if (body.maxOutputTokens !== undefined) data.maxOutputTokens = body.maxOutputTokens;
  if (body.capabilities !== undefined) data.capabilities = body.capabilities;
  if (body.limits !== undefined) data.limits = body.limits;
  if (body.enabled !== undefined) data.enabled = body.enabled;
  if (body.baseUrl !== undefined) data.baseUrl = body.baseUrl;
  const touchesLocks =
    body.fieldOverrides !== undefined || LOCKABLE_FIELDS.some((f) => body[f] !== undefined);
  if (touchesLocks) data.fieldOverrides = jsonOrNull(overridesObject(nextLocks(row, body)));
  return data;
}

/**
 * Read, compute, write only if nobody wrote in between (compare-and-set on `updatedAt`), else
 * read again: two PUTs at once each locking a field must both keep their lock, which a plain
 * read-then-update would lose. `compute` may throw (a 400) after seeing the current row.
 */
export async function updateModelRow(
  prisma: PrismaClient,
  id: string,
  compute: (row: Model) => Prisma.ModelUpdateManyMutationInput,
): Promise<Model> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await prisma.model.findUnique({ where: { id } });
    if (!row) throw AdminErrors.notFound(`The model "${id}"`);
    const data = compute(row);
    // Nothing to write (`PUT {}`): the row as it is, with its updatedAt untouched.
    if (Object.keys(data).length === 0) return row;
    const { count } = await prisma.model.updateMany({ where: { id, updatedAt: row.updatedAt }, data });
    if (count === 1) {
      const updated = await prisma.model.findUnique({ where: { id } });
      if (!updated) throw AdminErrors.notFound(`The model "${id}"`);
      return updated;
    }
  }
  throw new AdminError(409, "conflict", `The model "${id}" is being changed by other requests: try again.`);
}

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
