import { Prisma, type PrismaClient } from "@gw/db";
import type { UsageRequest } from "./query.js";

/**
 * The filters of one report, resolved to the columns usage_records and usage_rollups share
 * (`projectId`, `modelId`, `callType`, `outcome`; usage_latency_rollups has `modelId` only). A list
 * is `undefined` when it does not filter and empty when nothing can match (an unknown project
 * slug, disjoint `model` and `modelIds`).
 */
export interface UsageFilters {
  projectIds?: string[];
  modelIds?: string[];
  callType?: string;
  outcome?: string;
}

/**
 * Single- and multi-value filters AND together, so `project` and `projectIds` intersect. The slug
 * is the project's current one (rollups carry only the id); an unknown slug matches nothing.
 */
export async function resolveFilters(prisma: PrismaClient, query: UsageRequest): Promise<UsageFilters> {
  let projectIds = query.projectIds;
  if (query.project !== undefined) {
    const project = await prisma.project.findUnique({ where: { slug: query.project }, select: { id: true } });
    const bySlug = project ? [project.id] : [];
    projectIds = projectIds ? bySlug.filter((id) => projectIds!.includes(id)) : bySlug;
  }
  let modelIds = query.modelIds;
  if (query.model !== undefined)
    modelIds = modelIds ? modelIds.filter((id) => id === query.model) : [query.model];
  return {
    ...(projectIds ? { projectIds } : {}),
    ...(modelIds ? { modelIds } : {}),
    ...(query.callType ? { callType: query.callType } : {}),
    ...(query.outcome ? { outcome: query.outcome } : {}),
  };
}

export function matchesNothing(filters: UsageFilters): boolean {
  return filters.projectIds?.length === 0 || filters.modelIds?.length === 0;
}

/** The filter conditions (never the time range), as SQL over the shared column names. */
export function filterSql(filters: UsageFilters): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filters.projectIds) conditions.push(Prisma.sql`"projectId" IN (${Prisma.join(filters.projectIds)})`);
  if (filters.modelIds) conditions.push(Prisma.sql`"modelId" IN (${Prisma.join(filters.modelIds)})`);
  if (filters.callType) conditions.push(Prisma.sql`"callType" = ${filters.callType}`);
  if (filters.outcome === "error")
    // SPEC: `error` is every failure that is not a guardrail block.
    conditions.push(Prisma.sql`"outcome" NOT IN ('success', 'blocked')`);
  else if (filters.outcome) conditions.push(Prisma.sql`"outcome" = ${filters.outcome}`);
  return Prisma.join(conditions, " AND ");
}

/** The same filters for Prisma's query builder (the records page). */
export function filterWhere(filters: UsageFilters, from: Date, to: Date): Prisma.UsageRecordWhereInput {
  return {
    timestamp: { gte: from, lt: to },
    ...(filters.projectIds ? { projectId: { in: filters.projectIds } } : {}),
    ...(filters.modelIds ? { modelId: { in: filters.modelIds } } : {}),
    ...(filters.callType ? { callType: filters.callType } : {}),
    ...(filters.outcome === "error"
      ? { outcome: { notIn: ["success", "blocked"] } }
      : filters.outcome
        ? { outcome: filters.outcome }
        : {}),
  };
}
