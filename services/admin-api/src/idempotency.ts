import { Prisma } from "@gw/db";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AdminDeps } from "./deps.js";
import { AdminErrors } from "./errors.js";
import { routeConfig } from "./hooks.js";

/**
 * `Idempotency-Key` on create endpoints: the first call with a key runs and its answer is kept a
 * day (per user, route and key); a repeat gets that answer again instead of creating twice, and a
 * repeat while the first is still running gets 409. Server errors are not kept, so a call that
 * failed on our side can be retried with the same key.
 */
const KEEP_MS = 24 * 3_600_000;
const IN_PROGRESS = 0;

declare module "fastify" {
  interface FastifyRequest {
    idempotency?: { userId: string; route: string; key: string };
  }
}

function isCreate(request: FastifyRequest): boolean {
  const action = routeConfig(request).action ?? "";
  return request.method === "POST" && (action.endsWith(":create") || action === "member:add");
}

export function installIdempotency(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  // After authentication and the permission check: a replay is only for who may create.
  api.addHook("preHandler", async (request, reply) => {
    const key = request.headers["idempotency-key"];
    if (typeof key !== "string" || !isCreate(request) || !request.principal) return;
    if (key.length === 0 || key.length > 200)
      throw AdminErrors.invalid("Idempotency-Key: 1 to 200 characters.");
    const id = { userId: request.principal.userId, route: request.url.split("?")[0]!, key };
    const now = (deps.now ?? Date.now)();
    await prisma.idempotencyKey.deleteMany({ where: { ...id, createdAt: { lt: new Date(now - KEEP_MS) } } });
    try {
      await prisma.idempotencyKey.create({ data: { ...id, status: IN_PROGRESS, body: {} } });
      request.idempotency = id;
      return;
    } catch (error) {
      if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") throw error;
    }
    const first = await prisma.idempotencyKey.findUnique({ where: { userId_route_key: id } });
    if (!first || first.status === IN_PROGRESS)
      throw AdminErrors.conflict("A call with this Idempotency-Key is still running.");
    // A replay changes nothing: it is not audited again.
    request.audited = true;
    return reply.code(first.status).header("idempotency-replayed", "true").send(first.body);
  });

  api.addHook("onSend", async (request, reply, payload) => {
    const id = request.idempotency;
    if (!id) return payload;
    request.idempotency = undefined;
    const where = { userId_route_key: id };
    if (reply.statusCode >= 500) await prisma.idempotencyKey.delete({ where }).catch(() => {});
    else {
      const body = typeof payload === "string" && payload.length > 0 ? JSON.parse(payload) : {};
      await prisma.idempotencyKey.update({ where, data: { status: reply.statusCode, body } });
    }
    return payload;
  });
}
