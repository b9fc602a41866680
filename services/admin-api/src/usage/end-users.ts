import type { PrismaClient } from "@gw/db";
import { z } from "zod";
import { usd } from "./merge.js";

export const endUsersQuery = z.object({
  projectId: z.string().trim().min(1, "must not be empty").optional(),
  limit: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(10_000, "must be at most 10000")
    .default(1000),
  offset: z.coerce
    .number()
    .int("must be a whole number")
    .min(0, "must not be negative")
    .max(1_000_000_000, "must be at most 1000000000")
    .default(0),
});

/**
 * `GET /api/end-users`: the aggregates usage-writer keeps per (project, `user`), most recently
 * seen first. `requests` counts completion calls; tokens and cost include the routing and
 * guardrail calls made for the user. `totalCost` is what is priced: `unpricedCalls` (extra) says
 * how many calls had no price. Paginated (extra) so a project with many users stays cheap.
 */
export async function listEndUsers(prisma: PrismaClient, query: z.infer<typeof endUsersQuery>) {
  const where = query.projectId ? { projectId: query.projectId } : {};
  const [total, rows] = await prisma.$transaction([
    prisma.endUser.count({ where }),
    prisma.endUser.findMany({
      where,
      orderBy: [{ lastSeen: "desc" }, { projectId: "asc" }, { userId: "asc" }],
      skip: query.offset,
      take: query.limit,
    }),
  ]);
  return {
    users: rows.map((row) => ({
      userId: row.userId,
      projectId: row.projectId,
      firstSeen: row.firstSeen.toISOString(),
      lastSeen: row.lastSeen.toISOString(),
      requests: row.requests,
      totalTokens: Number(row.totalTokens),
      totalCost: usd(Number(row.totalCostMicros)),
      unpricedCalls: row.unpricedCalls,
    })),
    pagination: { limit: query.limit, offset: query.offset, total },
  };
}
