import type { Prisma } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { isoInstant } from "../iso-instant.js";
import { parseWith } from "../validate.js";

export const AUDIT_MAX_PAGE_SIZE = 200;

const wholeNumber = (fallback: number, max?: number) => {
  const base = z.coerce.number().int("must be a whole number").min(1, "must be at least 1");
  return (max ? base.max(max, `must be at most ${max}`) : base).default(fallback);
};

// Not strict: unknown query parameters (cache busters) are ignored, unlike unknown body fields.
const auditQuery = z.object({
  userId: z.string().trim().min(1, "must not be empty").optional(),
  action: z.string().trim().min(1, "must not be empty").optional(),
  result: z.enum(["success", "forbidden", "error"]).optional(),
  from: isoInstant("start").optional(),
  to: isoInstant("end-inclusive").optional(),
  page: wholeNumber(1, 1_000_000),
  pageSize: wholeNumber(50, AUDIT_MAX_PAGE_SIZE),
});

type AuditQuery = z.infer<typeof auditQuery>;

/** Every filter combines with AND; `userId` is an exact id or a case-insensitive part of the email. */
function whereOf(query: AuditQuery): Prisma.AuditEntryWhereInput {
  const and: Prisma.AuditEntryWhereInput[] = [];
  if (query.userId)
    and.push({
      OR: [{ userId: query.userId }, { email: { contains: query.userId, mode: "insensitive" } }],
    });
  if (query.action) and.push({ action: { contains: query.action, mode: "insensitive" } });
  if (query.result) and.push({ result: query.result });
  if (query.from || query.to)
    and.push({
      timestamp: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lte: query.to } : {}) },
    });
  return { AND: and };
}

/**
 * `GET /api/audit` (SPEC "Audit"): the trail the audit service stores from the bus, newest first,
 * paginated. `pageSize` above 200 is a 400 rather than clamped, so a client never believes it
 * received everything it asked for.
 */
export function registerAuditRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/audit", { config: { querystring: auditQuery, permission: "audit:read" } }, async (request) => {
    const query = parseWith(auditQuery, request.query);
    if (query.from && query.to && query.from > query.to)
      throw AdminErrors.invalid("from: must not be after to.");
    const where = whereOf(query);
    const [totalRecords, rows] = await deps.prisma.$transaction([
      deps.prisma.auditEntry.count({ where }),
      deps.prisma.auditEntry.findMany({
        where,
        orderBy: [{ timestamp: "desc" }, { id: "desc" }],
        skip: (query.page - 1) * query.pageSize,
        take: query.pageSize,
      }),
    ]);
    return {
      entries: rows.map((row) => ({
        id: row.id,
        timestamp: row.timestamp.toISOString(),
        userId: row.userId,
        email: row.email,
        endpoint: row.endpoint,
        action: row.action,
        result: row.result,
        details: row.details,
      })),
      pagination: {
        page: query.page,
        pageSize: query.pageSize,
        totalRecords,
        totalPages: Math.ceil(totalRecords / query.pageSize),
      },
    };
  });
}
