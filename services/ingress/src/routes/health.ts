import type { FastifyInstance } from "fastify";
import type { IngressDeps } from "../deps.js";

/**
 * Probes, no authentication. `/health` is liveness: `{ status: "ok", version, timestamp }`.
 * `/health/ready` is readiness: 200 `{ status: "ready" }` once routing and budget can be reached,
 * else 503 `{ status: "not_ready", waitingFor: ["routing", ...] }`, so an orchestrator sends no
 * traffic to an ingress that would refuse it (calls are refused with 503 meanwhile: fail closed).
 */
export function registerHealth(app: FastifyInstance, deps: IngressDeps): void {
  app.get("/health", async () => ({
    status: "ok",
    version: deps.version,
    timestamp: new Date().toISOString(),
  }));
  app.get("/health/ready", async (_request, reply) => {
    const waitingFor = await deps.notReady();
    if (waitingFor.length === 0) return { status: "ready", version: deps.version };
    return reply.code(503).send({ status: "not_ready", waitingFor });
  });
}
