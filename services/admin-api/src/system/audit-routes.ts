import type { Prisma } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { parseWith } from "../validate.js";

export const AUDIT_MAX_PAGE_SIZE = 200;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO 8601 date or date-time. A date-time without a zone is UTC (the server's clock of record);
 * a date alone is that whole UTC day: `from` starts at 00:00, `to` ends at 23:59:59.999 (as the
 * inbox does), so `from=to=2026-03-01` is one day.
 */
function instant(edge: "start" | "end") {
  return z
    .string()
    .trim()
    .refine(
      (value) => DATE_ONLY.test(value) || DATE_TIME.test(value),
      "must be an ISO 8601 date or date-time",
    )
    .transform((value, context) => {
      let text = value;
      if (DATE_ONLY.test(value)) text = `${value}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`;
      else if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(value)) text = `${value}Z`;
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) {
        context.addIssue({ code: "custom", message: "is not a valid date" });
        return z.NEVER;
      }
      return date;
    });
}

const wholeNumber = (fallback: number, max?: number) => {
  const base = z.coerce.number().int("must be a whole number").min(1, "must be at least 1");
  return (max ? base.max(max, `must be at most ${max}`) : base).default(fallback);
};

// Not strict: unknown query parameters (cache busters) are ignored, unlike unknown body fields.
const auditQuery = z.object({
  userId: z.string().trim().min(1, "must not be empty").optional(),
  action: z.string().trim().min(1, "must not be empty").optional(),
  result: z.enum(["success", "forbidden", "error"]).optional(),
  from: instant("start").optional(),
  to: instant("end").optional(),
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
