import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import {
  bearerTokenMatches,
  PROMETHEUS_CONTENT_TYPE,
  prometheusPullAccess,
  readMetricSnapshot,
  renderPrometheusText,
} from "@gw/metrics";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";

export interface MetricsHttpDeps {
  prisma: PrismaClient;
  counters: CounterStore;
  secretKey: Buffer;
  logger: Logger;
  version: string;
  keyPrefix?: string;
  now?: () => number;
}

const envelope = (message: string, type: string, code: string) => ({ error: { message, type, code } });

/**
 * The exporter's HTTP port: `GET /metrics`, the Prometheus pull endpoint in the text exposition
 * format, and `GET /health`. Every replica renders the same text (the state is shared). Access:
 * - no enabled prometheus integration: 404 (nothing asked for a pull endpoint; saying so beats
 *   serving figures nobody configured, and it tells the operator what to create);
 * - an enabled prometheus integration with an authToken: `Authorization: Bearer <authToken>`
 *   (constant-time compare), else 401; one without: open (see prometheusPullAccess).
 * The counter store or database being unreachable is a 503: Prometheus marks the target down.
 */
export function buildMetricsServer(deps: MetricsHttpDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get("/health", async () => ({
    status: "ok",
    version: deps.version,
    timestamp: new Date().toISOString(),
  }));
  app.get("/metrics", async (request, reply) => {
    let text: string;
    try {
      const access = await prometheusPullAccess(deps.prisma, deps.secretKey, (invalid) =>
        request.log.warn(
          { integration: invalid.id, reason: invalid.reason },
          "prometheus integration skipped",
        ),
      );
      if (access.kind === "none")
        return reply
          .code(404)
          .send(
            envelope(
              "No enabled prometheus integration: create one (POST /api/integrations, type prometheus) to serve metrics here.",
              "not_found",
              "metrics_disabled",
            ),
          );
      if (access.kind === "token" && !bearerTokenMatches(request.headers.authorization, access.tokens))
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="metrics"')
          .send(
            envelope(
              "Send the prometheus integration's authToken as Authorization: Bearer <authToken>.",
              "authentication_error",
              "unauthenticated",
            ),
          );
      text = await renderPrometheusText(
        await readMetricSnapshot({
          counters: deps.counters,
          prisma: deps.prisma,
          ...(deps.keyPrefix ? { keyPrefix: deps.keyPrefix } : {}),
          ...(deps.now ? { now: deps.now } : {}),
        }),
      );
    } catch (error) {
      request.log.error({ err: error }, "metrics snapshot failed");
      return reply
        .code(503)
        .send(
          envelope(
            "The metrics cannot be read right now; it is logged.",
            "unavailable",
            "metrics_unavailable",
          ),
        );
    }
    return reply.header("content-type", PROMETHEUS_CONTENT_TYPE).send(text);
  });
  // Anything else: the envelope, not fastify's default body.
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(envelope(`No route ${request.method} ${request.url.split("?")[0]}`, "not_found", "not_found")),
  );
  return app;
}
