import { Errors } from "@gw/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Dispatcher, request as undiciRequest } from "undici";
import { endToEndHeaders, returnedHeaders } from "../proxy/pass-through-headers.js";

/**
 * Distributed mode: `/api` and `/api/*` are served by admin-api, its own process; ingress (the one
 * public port) forwards them as they came (method, bytes, query, headers with the caller's JWT)
 * and streams the answer back. The client address goes along in `x-forwarded-for` (login limits).
 */
export function registerAdminForwarding(
  app: FastifyInstance,
  adminApiUrl: string,
  dispatcher: Dispatcher,
): void {
  const base = new URL(adminApiUrl);
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    const forward = (request: FastifyRequest, reply: FastifyReply) =>
      forwardToAdmin(base, dispatcher, request, reply);
    scope.all("/api", forward);
    scope.all("/api/*", forward);
  });
}

async function forwardToAdmin(
  base: URL,
  dispatcher: Dispatcher,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const body = Buffer.isBuffer(request.body) ? request.body : undefined;
  const headers = endToEndHeaders(request.headers);
  headers["x-forwarded-for"] = request.ip;
  try {
    const answer = await undiciRequest(new URL(request.url, base), {
      method: request.method as "GET",
      headers,
      ...(body && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
      dispatcher,
      headersTimeout: 30_000,
    });
    reply.code(answer.statusCode).headers(returnedHeaders(answer.headers));
    return reply.send(answer.body);
  } catch (error) {
    request.log.warn({ err: error }, "admin-api unreachable");
    throw Errors.serviceUnavailable("admin-api");
  }
}
