import { publishEvent } from "@gw/accounting";
import { newId } from "@gw/db";
import type { FastifyInstance } from "fastify";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { registerProjectMemberRoutes } from "../projects/member-routes.js";
import {
  createProjectBody,
  guardrailsBody,
  slugFromName,
  updateProjectBody,
} from "../projects/project-schemas.js";
import {
  assertSlugFree,
  assignments,
  isUniqueViolation,
  projectByIdOr404,
  projectBySlugOr404,
  slugTaken,
  withModels,
} from "../projects/project-store.js";
import { projectMembers, projectTokens, projectView } from "../projects/project-view.js";
import { assertReferencesExist, changedFields, projectColumns } from "../projects/project-writes.js";
import { registerProjectTokenRoutes } from "../projects/token-routes.js";
import { parseWith } from "../validate.js";

type SlugParams = { Params: { slug: string } };

/** `/api/projects` with tokens and members. Every change invalidates the caches (config.changed). */
export function registerProjectRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;
  const now = () => (deps.now ?? Date.now)();

  api.get("/projects", { config: { permission: "project:read" } }, async () => {
    const projects = await prisma.project.findMany({ include: withModels, orderBy: { createdAt: "asc" } });
    return { projects: projects.map(projectView) };
  });

  api.post(
    "/projects",
    { config: { body: createProjectBody, permission: "project:write", action: "project:create" } },
    async (request, reply) => {
      const body = parseWith(createProjectBody, request.body);
      const slug = body.slug ?? slugFromName(body.name);
      if (!slug)
        throw AdminErrors.invalid("slug: the name has no letter or digit to make one from; send a slug.");
      await assertSlugFree(prisma, slug);
      await assertReferencesExist(prisma, body);
      const id = newId("proj");
      const project = await prisma
        .$transaction(async (tx) => {
          await tx.project.create({ data: { ...projectColumns(body), id, name: body.name, slug } });
          if (body.models?.length) await tx.projectModel.createMany({ data: assignments(id, body.models) });
          return tx.project.findUniqueOrThrow({ where: { id }, include: withModels });
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? slugTaken(slug) : error;
        });
      request.auditDetails = { projectId: id, slug, changed: changedFields(body) };
      publishConfigChange(deps, "project", id, "created");
      publishEvent(deps.outbox, {
        event: "config.project_created",
        severity: "info",
        projectId: id,
        details: { projectId: id, slug },
        at: now(),
      });
      return reply.code(201).send(projectView(project));
    },
  );

  api.get<SlugParams>("/projects/:slug", { config: { permission: "project:read" } }, async (request) => {
    const project = await projectBySlugOr404(prisma, request.params.slug);
    return {
      ...projectView(project),
      tokens: await projectTokens(prisma, project.id),
      members: await projectMembers(prisma, project.id),
    };
  });

  api.put<SlugParams>(
    "/projects/:slug",
    { config: { body: updateProjectBody, permission: "project:write", action: "project:update" } },
    async (request) => {
      const body = parseWith(updateProjectBody, request.body);
      const project = await projectBySlugOr404(prisma, request.params.slug);
      const slug = body.slug ?? project.slug;
      if (slug !== project.slug) await assertSlugFree(prisma, slug);
      await assertReferencesExist(prisma, body);
      // The route's `:slug` param is merged into the audit entry as `slug`: a rename shows as newSlug.
      request.auditDetails = {
        projectId: project.id,
        slug: project.slug,
        ...(slug !== project.slug ? { newSlug: slug } : {}),
        changed: changedFields(body),
      };
      const updated = await prisma
        .$transaction(async (tx) => {
          await tx.project.update({ where: { id: project.id }, data: projectColumns(body) });
          // `models` replaces the assignment list, order included.
          if (body.models) {
            await tx.projectModel.deleteMany({ where: { projectId: project.id } });
            await tx.projectModel.createMany({ data: assignments(project.id, body.models) });
          }
          return tx.project.findUniqueOrThrow({ where: { id: project.id }, include: withModels });
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? slugTaken(slug) : error;
        });
      publishConfigChange(deps, "project", project.id, "updated");
      return projectView(updated);
    },
  );

  api.delete<SlugParams>(
    "/projects/:slug",
    { config: { permission: "project:write", action: "project:delete" } },
    async (request, reply) => {
      const project = await projectBySlugOr404(prisma, request.params.slug);
      request.auditDetails = { projectId: project.id, slug: project.slug };
      const tokens = await prisma.projectToken.findMany({
        where: { projectId: project.id },
        select: { id: true },
      });
      // Tokens and model assignments go with the project (cascade); members are kept apart.
      await prisma.$transaction([
        prisma.projectMember.deleteMany({ where: { projectId: project.id } }),
        prisma.project.delete({ where: { id: project.id } }),
      ]);
      publishConfigChange(deps, "project", project.id, "deleted");
      // Caches keyed by token must drop them too: a deleted project's tokens stop working at once.
      for (const token of tokens) publishConfigChange(deps, "token", token.id, "deleted");
      publishEvent(deps.outbox, {
        event: "config.project_deleted",
        severity: "info",
        projectId: project.id,
        details: { projectId: project.id, slug: project.slug },
        at: now(),
      });
      return reply.code(204).send();
    },
  );

  // By project id, not slug (SPEC): only guardrails and pii, each omitted/null/object.
  api.patch<{ Params: { id: string } }>(
    "/projects/:id/guardrails",
    { config: { body: guardrailsBody, permission: "project:write", action: "project:update_guardrails" } },
    async (request) => {
      const body = parseWith(guardrailsBody, request.body);
      const project = await projectByIdOr404(prisma, request.params.id);
      request.auditDetails = { projectId: project.id, slug: project.slug, changed: changedFields(body) };
      await prisma.project.update({ where: { id: project.id }, data: projectColumns(body) });
      publishConfigChange(deps, "project", project.id, "updated");
      return projectView(await projectByIdOr404(prisma, project.id));
    },
  );

  registerProjectTokenRoutes(api, deps);
  registerProjectMemberRoutes(api, deps);
}
