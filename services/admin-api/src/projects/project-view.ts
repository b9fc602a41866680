import type { PrismaClient, ProjectMember, ProjectToken } from "@gw/db";
import type { ProjectWithModels } from "./project-store.js";

/**
 * Projects, tokens and members as the API shows them. A token is never shown with its value or its
 * hash: only the display prefix, so a leaked response or log line cannot be replayed.
 */

export function projectView(project: ProjectWithModels) {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    defaultTimeoutMs: project.defaultTimeoutMs,
    policies: project.policies,
    models: project.models.map((assignment) => assignment.modelId),
    budgets: project.budgets,
    routing: project.routing ?? null,
    guardrails: project.guardrails ?? null,
    pii: project.pii ?? null,
    spendGroupId: project.spendGroupId,
    notifications: project.notifications ?? null,
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
}

export function tokenView(token: ProjectToken) {
  return {
    id: token.id,
    name: token.name,
    description: token.description,
    prefix: token.prefix,
    tags: token.tags,
    limits: token.limits,
    createdAt: token.createdAt.toISOString(),
    revoked: token.revokedAt !== null,
  };
}

/** Members with their email; a member whose account was deleted shows `email: null`. */
export async function memberViews(prisma: PrismaClient, members: ProjectMember[]) {
  const users = await prisma.user.findMany({
    where: { id: { in: members.map((member) => member.userId) } },
    select: { id: true, email: true },
  });
  const emails = new Map(users.map((user) => [user.id, user.email]));
  return members.map((member) => ({
    userId: member.userId,
    email: emails.get(member.userId) ?? null,
    role: member.role,
    createdAt: member.createdAt.toISOString(),
  }));
}

export async function projectTokens(prisma: PrismaClient, projectId: string) {
  const tokens = await prisma.projectToken.findMany({ where: { projectId }, orderBy: { createdAt: "asc" } });
  return tokens.map(tokenView);
}

export async function projectMembers(prisma: PrismaClient, projectId: string) {
  const members = await prisma.projectMember.findMany({
    where: { projectId },
    orderBy: { createdAt: "asc" },
  });
  return memberViews(prisma, members);
}
