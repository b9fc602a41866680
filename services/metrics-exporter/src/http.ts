import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import { answerPrometheusPull } from "@gw/metrics";
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
 * format (access and answers: answerPrometheusPull, shared with admin-api's `GET /api/metrics`),
 * and `GET /health`. Every replica renders the same text (the state is shared).
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
    const answer = await answerPrometheusPull({ ...deps, log: request.log }, request.headers.authorization);
    if (answer.status !== 200)
      return reply.code(answer.status).headers(answer.headers).send({ error: answer.error });
    return reply.header("content-type", answer.contentType).send(answer.text);
  });
  // Anything else: the envelope, not fastify's default body.
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(envelope(`No route ${request.method} ${request.url.split("?")[0]}`, "not_found", "not_found")),
  );
  return app;
}
