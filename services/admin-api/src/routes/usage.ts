import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { endUsersQuery, listEndUsers } from "../usage/end-users.js";
import { parseUsageQuery, usageQuery } from "../usage/query.js";
import { fullRecord, traceEntries } from "../usage/records.js";
import { usageReport } from "../usage/report.js";
import { parseWith } from "../validate.js";

const idParams = z.object({ id: z.string().min(1).max(200) });

/**
 * Usage, traces and end users (SPEC "Usage, traces, end users"), all under `report:read`. Reads
 * only: nothing is audited but a forbidden attempt (hooks.ts). How the report is computed is in
 * docs/USAGE.md ("API").
 */
export function registerUsageRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;
  const now = deps.now ?? Date.now;

  api.get("/usage", { config: { permission: "report:read", querystring: usageQuery } }, async (request) =>
    usageReport(prisma, parseUsageQuery(request.query, now())),
  );

  api.get("/usage/:id", { config: { permission: "report:read" } }, async (request) => {
    const { id } = parseWith(idParams, request.params);
    const record = await fullRecord(prisma, id);
    if (!record) throw AdminErrors.notFound(`Usage record ${id}`);
    return record;
  });

  api.get("/traces/:id", { config: { permission: "report:read" } }, async (request) => {
    const { id } = parseWith(idParams, request.params);
    const trace = await traceEntries(prisma, id);
    if (!trace) throw AdminErrors.notFound(`Trace ${id}`);
    return { trace };
  });

  api.get(
    "/end-users",
    { config: { permission: "report:read", querystring: endUsersQuery } },
    async (request) => listEndUsers(prisma, parseWith(endUsersQuery, request.query)),
  );
}
