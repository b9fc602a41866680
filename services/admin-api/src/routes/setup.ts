import { newId } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { hashPassword } from "../auth/passwords.js";
import type { AdminDeps } from "../deps.js";
import { AdminError } from "../errors.js";
import { loadPrincipal } from "../users/principal.js";
import { issueSession } from "../users/sessions.js";
import { parseWith } from "../validate.js";
import { newAccount } from "./schemas.js";

/** Serialises concurrent first-admin calls: exactly one of them creates the admin. */
const SETUP_LOCK = 727_001;

export function registerSetupRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/setup/status", { config: { public: true } }, async () => ({
    configured: (await deps.prisma.user.count({ where: { role: "admin" } })) > 0,
  }));

  api.post(
    "/setup/first-admin",
    { config: { body: newAccount, public: true, action: "setup:first-admin" } },
    async (request, reply) => {
      const body = parseWith(newAccount, request.body);
      const passwordHash = await hashPassword(body.password);
      const created = await deps.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`;
        if ((await tx.user.count({ where: { role: "admin" } })) > 0) return null;
        return tx.user.create({ data: { id: newId("usr"), email: body.email, passwordHash, role: "admin" } });
      });
      if (!created)
        throw new AdminError(403, "already_configured", "Setup is done: an admin already exists.");
      const principal = (await loadPrincipal(deps.prisma, created.id))!;
      request.principal = principal;
      request.auditDetails = { userId: created.id };
      return reply.code(201).send(await issueSession(deps, principal));
    },
  );
}
