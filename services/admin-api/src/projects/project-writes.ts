import type { PrismaClient } from "@gw/db";
import type { UpdateProjectBody } from "./project-schemas.js";
import {
  assertModelsExist,
  assertRoutingModelsExist,
  assertSpendGroupExists,
  nullableJson,
} from "./project-store.js";

/**
 * The columns a create or an update body sets. An omitted field is left out (unchanged on
 * update, the column default on create); `null` clears a nullable one. `models` is not a column:
 * the caller writes the `project_models` rows.
 */
export function projectColumns(body: UpdateProjectBody) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.slug !== undefined ? { slug: body.slug } : {}),
    ...(body.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: body.defaultTimeoutMs } : {}),
    ...(body.policies !== undefined ? { policies: body.policies } : {}),
    ...(body.budgets !== undefined ? { budgets: body.budgets } : {}),
    ...(body.spendGroupId !== undefined ? { spendGroupId: body.spendGroupId } : {}),
    ...(body.routing !== undefined ? { routing: nullableJson(body.routing) } : {}),
    ...(body.guardrails !== undefined ? { guardrails: nullableJson(body.guardrails) } : {}),
    ...(body.pii !== undefined ? { pii: nullableJson(body.pii) } : {}),
    ...(body.notifications !== undefined ? { notifications: nullableJson(body.notifications) } : {}),
  };
}

/** Everything the body names must exist: models (assigned and routing ones) and the spend group. */
export async function assertReferencesExist(prisma: PrismaClient, body: UpdateProjectBody): Promise<void> {
  await assertModelsExist(prisma, "models", body.models ?? []);
  await assertRoutingModelsExist(prisma, body.routing);
  await assertSpendGroupExists(prisma, body.spendGroupId);
}

/** Field names for the audit entry: which fields a call set, never their values. */
export function changedFields(body: object): string[] {
  return Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([field]) => field);
}
