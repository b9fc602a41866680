import { errorEnvelope } from "@gw/errors";
import type { FastifyInstance } from "fastify";
import type { IngressDeps } from "../deps.js";

/**
 * `/` redirects to the dashboard. Every path nothing handles answers a standard 404 in the
 * envelope; the pass-through proxy (forwarding unhandled, non-reserved paths upstream) replaces
 * this not-found handler with the proxy-surface issue.
 */
export function registerReserved(app: FastifyInstance, _deps: IngressDeps): void {
  app.get("/", async (_request, reply) => reply.redirect("/dashboard/", 302));
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send(
      errorEnvelope({
        message: `No route for ${request.method} ${request.url.split("?")[0]}.`,
        type: "not_found_error",
        code: "not_found",
      }),
    ),
  );
}
