import { randomUUID } from "node:crypto";
import type { ProjectConfig, TokenConfig } from "@gw/config-store";
import { Errors, GatewayError } from "@gw/errors";
import { hashToken, PROJECT_TOKEN_PREFIX } from "@gw/security";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { UsageBase } from "../accounting/usage-record.js";
import type { IngressDeps } from "../deps.js";

/** Who is calling, for which project, and the request-level options from headers. */
export interface CallerContext {
  traceId: string;
  token: TokenConfig;
  project: ProjectConfig;
  /** `x-service-trace: 1`: answer with `x-service-trace-id`. */
  traceHeader: boolean;
  /** `x-service-no-trace: 1`: no `trace` SSE event (the trace is still recorded). */
  noTraceEvent: boolean;
  /** Aborted when the client goes away: the upstream request is aborted with it. */
  signal: AbortSignal;
  usageBase: UsageBase;
}

/**
 * `Authorization: Bearer sk-rt-...` or `x-api-key: sk-rt-...`; Bearer wins when both are sent.
 * Unknown tokens -> 401 (the auth.token_invalid event is emitted by the caller of this function).
 */
export function presentedToken(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && authorization.toLowerCase().startsWith("bearer ")) {
    const value = authorization.slice(7).trim();
    if (value) return value;
  }
  const apiKey = request.headers["x-api-key"];
  return typeof apiKey === "string" && apiKey.trim() ? apiKey.trim() : undefined;
}

export async function resolveCaller(
  deps: IngressDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { endpoint: string; projectSlug?: string },
): Promise<CallerContext> {
  const value = presentedToken(request);
  if (!value?.startsWith(PROJECT_TOKEN_PREFIX)) throw Errors.invalidToken();
  const token = await deps.configStore.tokenByHash(hashToken(value));
  if (!token) throw Errors.invalidToken();
  const project = await deps.configStore.projectById(token.projectId);
  if (!project) throw Errors.invalidToken();
  if (options.projectSlug && options.projectSlug !== project.slug) {
    // Tokens with access to several projects arrive with the proxy-surface issue.
    throw new GatewayError({
      code: "project_forbidden",
      type: "permission_error",
      status: 403,
      message: `This token may not use project ${options.projectSlug}.`,
    });
  }
  const traceId = randomUUID();
  const controller = new AbortController();
  // The response closing before it finished means the client went away (the request's own
  // "close" fires once its body is read, so it cannot tell).
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const sessionHeader = request.headers["x-service-conversation-id"];
  return {
    traceId,
    token,
    project,
    traceHeader: request.headers["x-service-trace"] === "1",
    noTraceEvent: request.headers["x-service-no-trace"] === "1",
    signal: controller.signal,
    usageBase: {
      traceId,
      startedAt: Date.now(),
      projectId: project.id,
      projectSlug: project.slug,
      tokenId: token.id,
      tags: token.tags,
      sessionId: typeof sessionHeader === "string" ? sessionHeader.slice(0, 200) : "",
      endUser: "",
      endpoint: options.endpoint,
    },
  };
}
