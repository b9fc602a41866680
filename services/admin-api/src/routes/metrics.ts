import { answerPrometheusPull } from "@gw/metrics";
import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";

/**
 * `GET /api/metrics`: the Prometheus pull endpoint (SPEC "Metric export"), in the text exposition
 * format. Public as far as access tokens go (a scraper has no user): an enabled prometheus
 * integration opens it, guarded by its `authToken` when it has one (docs/METRICS.md). Not audited:
 * a scrape every 15 s is not a management action. Served by admin-api, so standalone answers it on
 * its single port and distributed ingress forwards it with the rest of /api.
 */
export function registerMetricsRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/metrics", { config: { public: true } }, async (request, reply) => {
    const answer = await answerPrometheusPull(
      { ...deps, keyPrefix: deps.metricsKeyPrefix, log: request.log },
      request.headers.authorization,
    );
    if (answer.status !== 200)
      return reply.code(answer.status).headers(answer.headers).send({ error: answer.error });
    return reply.header("content-type", answer.contentType).send(answer.text);
  });
}
