import { newId, type Prisma, type PrismaClient } from "@gw/db";
import { generateProjectToken, hashToken, tokenDisplayPrefix } from "@gw/security";
import type { FastifyInstance } from "fastify";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { parseWith } from "../validate.js";
import { createTokenBody, updateTokenBody } from "./project-schemas.js";
import { projectBySlugOr404 } from "./project-store.js";
import { projectTokens, tokenView } from "./project-view.js";
import { changedFields } from "./project-writes.js";

type TokenParams = { Params: { slug: string; tokenId: string } };

/**
 * `/api/projects/:slug/tokens`. The value is made here, answered once on creation and never stored:
 * only its SHA-256 (what ingress looks tokens up by) and a short display prefix are. Audit entries
 * carry token ids and names, never the value.
 */
export function registerProjectTokenRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  api.get<{ Params: { slug: string } }>(
    "/projects/:slug/tokens",
    { config: { permission: "project:read" } },
    async (request) => {
      const project = await projectBySlugOr404(prisma, request.params.slug);
      return { tokens: await projectTokens(prisma, project.id) };
    },
  );

  api.post<{ Params: { slug: string } }>(
    "/projects/:slug/tokens",
    { config: { body: createTokenBody, permission: "project:write", action: "token:create" } },
    async (request, reply) => {
      const body = parseWith(createTokenBody, request.body);
      const project = await projectBySlugOr404(prisma, request.params.slug);
      const value = generateProjectToken();
      const token = await prisma.projectToken.create({
        data: {
          id: newId("tok"),
          projectId: project.id,
          name: body.name,
          description: body.description ?? null,
          tokenHash: hashToken(value),
          prefix: tokenDisplayPrefix(value),
          tags: body.tags ?? {},
          limits: body.limits ?? [],
        },
      });
      request.auditDetails = {
        projectId: project.id,
        tokenId: token.id,
        tokenName: token.name,
        changed: changedFields(body),
      };
      publishConfigChange(deps, "token", token.id, "created");
      return reply.code(201).send({ ...tokenView(token), token: value });
    },
  );

  api.put<TokenParams>(
    "/projects/:slug/tokens/:tokenId",
    { config: { body: updateTokenBody, permission: "project:write", action: "token:update" } },
    async (request) => {
      const body = parseWith(updateTokenBody, request.body);
      const { project, token } = await liveToken(prisma, request.params);
      request.auditDetails = {
        projectId: project.id,
        tokenName: body.name ?? token.name,
        changed: changedFields(body),
      };
      const data: Prisma.ProjectTokenUpdateInput = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        // Replaced as a whole, never merged: `{}` clears the tags.
        ...(body.tags !== undefined ? { tags: body.tags } : {}),
        ...(body.limits !== undefined ? { limits: body.limits } : {}),
      };
      const updated = await prisma.projectToken.update({ where: { id: token.id }, data });
      publishConfigChange(deps, "token", token.id, "updated");
      return tokenView(updated);
    },
  );

  // Revoked, not deleted: the row keeps usage and budget scopes of calls already admitted
  // resolvable, while ingress's lookup refuses a revoked token from the next cache miss on.
  api.delete<TokenParams>(
    "/projects/:slug/tokens/:tokenId",
    { config: { permission: "project:write", action: "token:delete" } },
    async (request, reply) => {
      const { project, token } = await liveToken(prisma, request.params);
      request.auditDetails = { projectId: project.id, tokenName: token.name };
      await prisma.projectToken.update({
        where: { id: token.id },
        data: { revokedAt: new Date((deps.now ?? Date.now)()) },
      });
      // Every replica drops its cached copy: the token stops working within a second everywhere.
      publishConfigChange(deps, "token", token.id, "deleted");
      return reply.code(204).send();
    },
  );
}

/** The project and its token (404 when either is missing, or the token is another project's). */
async function liveToken(prisma: PrismaClient, params: { slug: string; tokenId: string }) {
  const project = await projectBySlugOr404(prisma, params.slug);
  const token = await prisma.projectToken.findFirst({ where: { id: params.tokenId, projectId: project.id } });
  if (!token) throw AdminErrors.notFound(`The token "${params.tokenId}"`);
  if (token.revokedAt) throw AdminErrors.conflict("The token is revoked: it can no longer be changed.");
  return { project, token };
}
