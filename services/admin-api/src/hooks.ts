import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { type AuditResult, publishAudit } from "./audit.js";
import { JwtError, verifyAccessToken } from "./auth/jwt.js";
import type { Permission } from "./auth/permissions.js";
import type { AdminDeps } from "./deps.js";
import { AdminErrors } from "./errors.js";
import { loadPrincipal, type Principal } from "./users/principal.js";

/**
 * What a route declares in its fastify `config`:
 * - `public`: no access token needed (setup, login, refresh, system info);
 * - `permission`: what the caller must hold (`"admin"` = the admin role itself);
 * - `action`: the audit action (`model:create`); set on every mutating route, so each call is
 *   audited with its result. Forbidden attempts are audited on every route.
 */
export interface AdminRouteConfig {
  public?: boolean;
  permission?: Permission | "admin";
  action?: string;
  /** The body and query schemas the handler parses with: documented in `/api/openapi.json`. */
  body?: z.ZodType;
  querystring?: z.ZodType;
}

declare module "fastify" {
  interface FastifyRequest {
    principal?: Principal;
    /** Safe facts for the audit entry (ids, names, changed fields), set by the handler. */
    auditDetails?: Record<string, unknown>;
    audited?: boolean;
  }
}

/**
 * Project member roles (DESIGN: `viewer`, `editor`) add to the global role, for one project: a
 * viewer may read it, an editor read and change it and its tokens. Deleting the project and
 * managing its members stay with the global `project:write`.
 */
const MEMBER_SCOPED: Record<string, "read" | "write"> = {
  "GET /api/projects/:slug": "read",
  "PUT /api/projects/:slug": "write",
  "PATCH /api/projects/:id/guardrails": "write",
  "GET /api/projects/:slug/tokens": "read",
  "POST /api/projects/:slug/tokens": "write",
  "PUT /api/projects/:slug/tokens/:tokenId": "write",
  "DELETE /api/projects/:slug/tokens/:tokenId": "write",
  "GET /api/projects/:slug/members": "read",
};

async function grantedByMembership(
  deps: AdminDeps,
  request: FastifyRequest,
  permission: Permission | "admin",
): Promise<boolean> {
  const need = MEMBER_SCOPED[`${request.method} ${request.routeOptions.url}`];
  if (!need || (permission !== "project:read" && permission !== "project:write")) return false;
  const params = request.params as { slug?: string; id?: string };
  const project = await deps.prisma.project.findFirst({
    where: params.slug ? { slug: params.slug } : { id: params.id ?? "" },
    select: { id: true },
  });
  if (!project) return false;
  const member = await deps.prisma.projectMember.findUnique({
    where: { projectId_userId: { projectId: project.id, userId: request.principal!.userId } },
  });
  return member !== null && (need === "read" || member.role === "editor");
}

export function routeConfig(request: FastifyRequest): AdminRouteConfig {
  return (request.routeOptions.config ?? {}) as AdminRouteConfig;
}

/** Authentication, permission checks and the audit trail of every management route. */
export function installAdminHooks(api: FastifyInstance, deps: AdminDeps): void {
  api.addHook("onRequest", async (request) => {
    const config = routeConfig(request);
    // No route matched: the not-found answer needs no token (and says nothing about routes).
    if (config.public || request.is404) return;
    const header = request.headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw AdminErrors.unauthenticated();
    let userId: string;
    try {
      userId = verifyAccessToken(match[1]!, deps.jwtKey, (deps.now ?? Date.now)()).sub;
    } catch (error) {
      if (error instanceof JwtError)
        throw AdminErrors.unauthenticated(
          error.reason === "expired"
            ? "The access token has expired: refresh it."
            : "The access token is not valid.",
        );
      throw error;
    }
    const principal = await loadPrincipal(deps.prisma, userId);
    if (!principal) throw AdminErrors.unauthenticated("The account of this access token no longer exists.");
    request.principal = principal;
  });

  api.addHook("preHandler", async (request) => {
    const { permission } = routeConfig(request);
    const principal = request.principal;
    if (!permission || !principal) return;
    const allowed = permission === "admin" ? principal.isAdmin : principal.permissions.includes(permission);
    if (allowed || (await grantedByMembership(deps, request, permission))) return;
    audit(request, "forbidden");
    throw AdminErrors.forbidden(permission === "admin" ? "admin role" : permission);
  });

  api.addHook("onResponse", async (request, reply) => {
    if (request.audited || !routeConfig(request).action || !request.principal) return;
    audit(request, reply.statusCode < 400 ? "success" : reply.statusCode === 403 ? "forbidden" : "error", {
      status: reply.statusCode,
    });
  });

  function audit(request: FastifyRequest, result: AuditResult, extra: Record<string, unknown> = {}) {
    request.audited = true;
    const config = routeConfig(request);
    publishAudit(deps, request, {
      action: config.action ?? `${request.method.toLowerCase()}:${request.routeOptions.url ?? request.url}`,
      result,
      details: { ...request.auditDetails, ...(request.params as object), ...extra },
    });
  }
}
