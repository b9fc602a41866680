import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { IngressDeps } from "./deps.js";
import { renderError } from "./errors.js";
import { registerHealth } from "./routes/health.js";
import { registerModelsAndTokenCount } from "./routes/models-and-tokens.js";
import { registerPassThrough } from "./routes/pass-through.js";
import { registerProxyEndpoints } from "./routes/proxy-endpoints.js";

/**
 * The public HTTP app, built apart from listening so tests use `inject` or a real port alike.
 * Secrets never reach logs: the request serializer omits headers entirely.
 */
export function buildIngressApp(deps: IngressDeps): FastifyInstance {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance's default generic types.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Per-request access lines cost the hot path; failures are logged by the error renderer.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    return503OnClosing: true,
    // Default "idle": on close, idle keep-alive sockets are closed, in-flight requests finish.
    requestIdHeader: false,
  });
  app.setErrorHandler((error, request, reply) => renderError(error, request, reply));
  registerHealth(app, deps);
  registerProxyEndpoints(app, deps);
  registerModelsAndTokenCount(app, deps);
  deps.mountExtraRoutes?.(app);
  // Last: its wildcard takes every path the routes above do not handle.
  registerPassThrough(app, deps);
  return app;
}
