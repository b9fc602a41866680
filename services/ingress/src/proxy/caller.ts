import { randomUUID } from "node:crypto";
import type { UsageBase } from "@gw/accounting";
import type { ProjectConfig, TokenConfig } from "@gw/config-store";
import { Errors, GatewayError } from "@gw/errors";
import { hashToken, PROJECT_TOKEN_PREFIX } from "@gw/security";
import type { FastifyReply, FastifyRequest } from "fastify";
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
  const { token, project: own } = await authenticate(deps, request);
  const project = options.projectSlug ? await projectForSlug(deps, token, own, options.projectSlug) : own;
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

/** The token and its own project; 401 (and an `auth.token_invalid` event) otherwise. */
export async function authenticate(
  deps: IngressDeps,
  request: FastifyRequest,
): Promise<{ token: TokenConfig; project: ProjectConfig }> {
  const value = presentedToken(request);
  if (!value) throw Errors.invalidToken();
  const tokenHash = hashToken(value);
  const token = value.startsWith(PROJECT_TOKEN_PREFIX) ? await deps.configStore.tokenByHash(tokenHash) : null;
  const project = token ? await deps.configStore.projectById(token.projectId) : null;
  if (!token || !project) {
    deps.authEvents.tokenInvalid(tokenHash, request.ip);
    throw Errors.invalidToken();
  }
  return { token, project };
}

/**
 * `/projects/{slug}/v1/*`: the slug overrides the token's project when the token may use that
 * project (its own, or one listed in the token's `extraProjectIds`); 403 otherwise. An unknown
 * slug answers the same 403, so a token cannot probe which projects exist.
 */
async function projectForSlug(
  deps: IngressDeps,
  token: TokenConfig,
  own: ProjectConfig,
  slug: string,
): Promise<ProjectConfig> {
  if (slug === own.slug) return own;
  const project = await deps.configStore.projectBySlug(slug);
  if (!project || !token.extraProjectIds.includes(project.id)) {
    throw new GatewayError({
      code: "project_forbidden",
      type: "permission_error",
      status: 403,
      message: `This token may not use project ${slug.slice(0, 100)}.`,
    });
  }
  return project;
}
