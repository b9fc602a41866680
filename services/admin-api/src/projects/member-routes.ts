import type { FastifyInstance } from "fastify";
import { publishConfigChange } from "../config-changes.js";
import type { AdminDeps } from "../deps.js";
import { AdminErrors } from "../errors.js";
import { parseWith } from "../validate.js";
import { addMemberBody, updateMemberBody } from "./project-schemas.js";
import { isUniqueViolation, projectBySlugOr404 } from "./project-store.js";
import { memberViews, projectMembers } from "./project-view.js";

type MemberParams = { Params: { slug: string; userId: string } };

/** Config-change id of a membership: one user in one project. */
const memberKey = (projectId: string, userId: string) => `${projectId}:${userId}`;

/** `/api/projects/:slug/members`: a user's role (`viewer`, `editor`) in one project. */
export function registerProjectMemberRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  async function memberOr404(params: { slug: string; userId: string }) {
    const project = await projectBySlugOr404(prisma, params.slug);
    const member = await prisma.projectMember.findUnique({
      where: { projectId_userId: { projectId: project.id, userId: params.userId } },
    });
    if (!member) throw AdminErrors.notFound(`The member "${params.userId}" of this project`);
    return { project, member };
  }

  api.get<{ Params: { slug: string } }>(
    "/projects/:slug/members",
    { config: { permission: "project:read" } },
    async (request) => {
      const project = await projectBySlugOr404(prisma, request.params.slug);
      return { members: await projectMembers(prisma, project.id) };
    },
  );

  api.post<{ Params: { slug: string } }>(
    "/projects/:slug/members",
    { config: { body: addMemberBody, permission: "project:write", action: "member:add" } },
    async (request, reply) => {
      const body = parseWith(addMemberBody, request.body);
      const project = await projectBySlugOr404(prisma, request.params.slug);
      if (!(await prisma.user.findUnique({ where: { id: body.userId }, select: { id: true } })))
        throw AdminErrors.invalid(`userId: no user has the id "${body.userId}".`);
      request.auditDetails = {
        projectId: project.id,
        userId: body.userId,
        role: body.role,
        changed: ["role"],
      };
      const alreadyMember = AdminErrors.conflict("This user is already a member of the project.");
      const existing = await prisma.projectMember.findUnique({
        where: { projectId_userId: { projectId: project.id, userId: body.userId } },
      });
      if (existing) throw alreadyMember;
      const member = await prisma.projectMember
        .create({ data: { projectId: project.id, userId: body.userId, role: body.role } })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? alreadyMember : error;
        });
      publishConfigChange(deps, "member", memberKey(project.id, body.userId), "created");
      return reply.code(201).send((await memberViews(prisma, [member]))[0]);
    },
  );

  api.put<MemberParams>(
    "/projects/:slug/members/:userId",
    { config: { body: updateMemberBody, permission: "project:write", action: "member:update" } },
    async (request) => {
      const body = parseWith(updateMemberBody, request.body);
      const { project, member } = await memberOr404(request.params);
      request.auditDetails = { projectId: project.id, role: body.role, changed: ["role"] };
      const updated = await prisma.projectMember.update({
        where: { projectId_userId: { projectId: project.id, userId: member.userId } },
        data: { role: body.role },
      });
      publishConfigChange(deps, "member", memberKey(project.id, member.userId), "updated");
      return (await memberViews(prisma, [updated]))[0];
    },
  );

  api.delete<MemberParams>(
    "/projects/:slug/members/:userId",
    { config: { permission: "project:write", action: "member:remove" } },
    async (request, reply) => {
      const { project, member } = await memberOr404(request.params);
      request.auditDetails = { projectId: project.id, role: member.role };
      await prisma.projectMember.delete({
        where: { projectId_userId: { projectId: project.id, userId: member.userId } },
      });
      publishConfigChange(deps, "member", memberKey(project.id, member.userId), "deleted");
      return reply.code(204).send();
    },
  );
}
