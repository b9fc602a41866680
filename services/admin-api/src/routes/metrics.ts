import {
  bearerTokenMatches,
  PROMETHEUS_CONTENT_TYPE,
  prometheusPullAccess,
  readMetricSnapshot,
  renderPrometheusText,
} from "@gw/metrics";
import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "../deps.js";
import { AdminError, AdminErrors } from "../errors.js";

/**
 * `GET /api/metrics`: the Prometheus pull endpoint (SPEC "Metric export"), in the text exposition
 * format. Public as far as access tokens go (a scraper has no user): an enabled prometheus
 * integration opens it, guarded by its `authToken` when it has one (docs/METRICS.md). Not audited:
 * a scrape every 15 s is not a management action. Served by admin-api, so standalone answers it on
 * its single port and distributed ingress forwards it with the rest of /api.
 */
export function registerMetricsRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/metrics", { config: { public: true } }, async (request, reply) => {
    const access = await prometheusPullAccess(deps.prisma, deps.secretKey, (invalid) =>
      request.log.warn(
        { integrationId: invalid.id, reason: invalid.reason },
        "prometheus integration skipped",
      ),
    );
    if (access.kind === "none")
      throw new AdminError(
        404,
        "not_found",
        "No enabled prometheus integration: create one (POST /api/integrations, type prometheus) to serve metrics here.",
      );
    if (access.kind === "token" && !bearerTokenMatches(request.headers.authorization, access.tokens)) {
      reply.header("www-authenticate", 'Bearer realm="metrics"');
      throw AdminErrors.unauthenticated(
        "Send the prometheus integration's authToken as Authorization: Bearer <authToken>.",
      );
    }
    let text: string;
    try {
      text = await renderPrometheusText(
        await readMetricSnapshot({
          counters: deps.counters,
          prisma: deps.prisma,
          keyPrefix: deps.metricsKeyPrefix,
          ...(deps.now ? { now: deps.now } : {}),
        }),
      );
    } catch (error) {
      // The counter store being down is not the scraper's fault: 503, and Prometheus marks the target down.
      request.log.error({ err: error }, "metrics snapshot failed");
      throw new AdminError(503, "metrics_unavailable", "The metrics cannot be read right now; it is logged.");
    }
    return reply.header("content-type", PROMETHEUS_CONTENT_TYPE).send(text);
  });
}
