import type { FastifyInstance } from "fastify";
import type { IngressDeps } from "../deps.js";

/** Liveness probe, no authentication: `{ status: "ok", version, timestamp }`. */
export function registerHealth(app: FastifyInstance, deps: IngressDeps): void {
  app.get("/health", async () => ({
    status: "ok",
    version: deps.version,
    timestamp: new Date().toISOString(),
  }));
}
