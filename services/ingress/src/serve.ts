import type { Shutdown } from "@gw/lifecycle";
import type { FastifyInstance } from "fastify";
import { buildIngressApp } from "./app.js";
import type { IngressDeps } from "./deps.js";
import { scheduleResponseCleanup } from "./proxy/stored-responses.js";

/**
 * Listen, and register the shutdown steps that lose nothing: stop accepting and let in-flight
 * requests finish (fastify close), then flush the outbox so every usage record they produced is
 * published (or kept in the write-ahead log for the next start).
 */
export async function serveIngress(
  deps: IngressDeps,
  options: { host: string; port: number; shutdown: Shutdown; flushTimeoutMs: number },
): Promise<{ app: FastifyInstance; url: string }> {
  const app = buildIngressApp(deps);
  let closing = false;
  // Responses finished during shutdown tell the client to drop the connection; without this a
  // keep-alive socket that served an in-flight request holds close() until its idle timeout.
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
  const address = await app.listen({ host: options.host, port: options.port });
  const stopCleanup = scheduleResponseCleanup(deps.responses, deps.logger);
  options.shutdown.register("stored-responses-cleanup", stopCleanup);
  options.shutdown.register("http", async () => {
    closing = true;
    // Hijacked (streamed) responses skip onSend: close their sockets as soon as they go idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
    }
  });
  // The last requests' health reports, before the routing client closes.
  options.shutdown.register("health-reports", () => deps.outcomes.flush());
  options.shutdown.register("outbox", async () => {
    await deps.outbox.flush(options.flushTimeoutMs);
    await deps.outbox.close();
  });
  return { app, url: address };
}
