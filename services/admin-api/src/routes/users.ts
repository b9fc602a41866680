import { newId, type User } from "@gw/db";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { hashPassword } from "../auth/passwords.js";
import type { AdminDeps } from "../deps.js";
import { AdminError, AdminErrors } from "../errors.js";
import { rolePermissions } from "../users/principal.js";
import { revokeUserSessions } from "../users/sessions.js";
import { parseWith } from "../validate.js";
import { email, password } from "./schemas.js";

/** A user as the API shows it: never the password hash. */
export function profileOf(user: User, permissions: string[]) {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    permissions,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

const role = z.string().trim().min(1, "is required");
const createUser = z.strictObject({ email, password, role });
const updateUser = z.strictObject({
  email: email.optional(),
  password: password.optional(),
  role: role.optional(),
});

export function registerUserRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  /** The role exists, and the caller may grant it: never more than the caller holds (no escalation). */
  async function assertGrantable(request: FastifyRequest, roleName: string): Promise<string[]> {
    const isKnown =
      ["admin", "member", "viewer"].includes(roleName) ||
      (await prisma.role.findUnique({ where: { name: roleName } }));
    if (!isKnown) throw AdminErrors.invalid(`role: no role is named "${roleName}".`);
    const granted = await rolePermissions(prisma, roleName);
    const caller = request.principal!;
    const beyond = granted.filter((p) => !caller.permissions.includes(p));
    if ((roleName === "admin" && !caller.isAdmin) || beyond.length > 0)
      throw new AdminError(
        403,
        "forbidden",
        `Only a user holding every permission of "${roleName}" may grant it.`,
      );
    return granted;
  }

  async function assertNotLastAdmin(userId: string): Promise<void> {
    const admins = await prisma.user.findMany({ where: { role: "admin" }, select: { id: true }, take: 2 });
    if (admins.length === 1 && admins[0]!.id === userId)
      throw AdminErrors.conflict("This is the last admin: make another user admin first.");
  }

  api.get("/users", { config: { permission: "admin" } }, async () => {
    const users = await prisma.user.findMany({ orderBy: { createdAt: "asc" } });
    return {
      users: await Promise.all(users.map(async (u) => profileOf(u, await rolePermissions(prisma, u.role)))),
    };
  });

  api.post(
    "/users",
    { config: { body: createUser, permission: "user:write", action: "user:create" } },
    async (request, reply) => {
      const body = parseWith(createUser, request.body);
      const permissions = await assertGrantable(request, body.role);
      if (await prisma.user.findUnique({ where: { email: body.email } }))
        throw AdminErrors.conflict("Another account uses this email.");
      const user = await prisma.user.create({
        data: {
          id: newId("usr"),
          email: body.email,
          passwordHash: await hashPassword(body.password),
          role: body.role,
        },
      });
      request.auditDetails = { userId: user.id, role: user.role };
      return reply.code(201).send(profileOf(user, permissions));
    },
  );

  api.get<{ Params: { id: string } }>(
    "/users/:id",
    { config: { permission: "user:write" } },
    async (request) => {
      const user = await prisma.user.findUnique({ where: { id: request.params.id } });
      if (!user) throw AdminErrors.notFound("The user");
      return profileOf(user, await rolePermissions(prisma, user.role));
    },
  );

  api.put<{ Params: { id: string } }>(
    "/users/:id",
    { config: { body: updateUser, permission: "user:write", action: "user:update" } },
    async (request) => {
      const body = parseWith(updateUser, request.body);
      const user = await prisma.user.findUnique({ where: { id: request.params.id } });
      if (!user) throw AdminErrors.notFound("The user");
      // Changing an admin account at all needs an admin: a user:write holder cannot take it over.
      if (user.role === "admin" && !request.principal!.isAdmin)
        throw new AdminError(403, "forbidden", "Only an admin may change an admin account.");
      if (body.role && body.role !== user.role) {
        await assertGrantable(request, body.role);
        if (user.role === "admin") await assertNotLastAdmin(user.id);
      }
      if (
        body.email &&
        body.email !== user.email &&
        (await prisma.user.findUnique({ where: { email: body.email } }))
      )
        throw AdminErrors.conflict("Another account uses this email.");
      request.auditDetails = { userId: user.id, changed: Object.keys(body) };
      const updated = await prisma.user.update({
        where: { id: user.id },
        data: {
          ...(body.email ? { email: body.email } : {}),
          ...(body.role ? { role: body.role } : {}),
          ...(body.password ? { passwordHash: await hashPassword(body.password) } : {}),
        },
      });
      if (body.password || (body.role && body.role !== user.role))
        await revokeUserSessions(prisma, user.id, new Date());
      return profileOf(updated, await rolePermissions(prisma, updated.role));
    },
  );

  api.delete<{ Params: { id: string } }>(
    "/users/:id",
    { config: { permission: "user:write", action: "user:delete" } },
    async (request, reply) => {
      const user = await prisma.user.findUnique({ where: { id: request.params.id } });
      if (!user) throw AdminErrors.notFound("The user");
      if (user.role === "admin" && !request.principal!.isAdmin)
        throw new AdminError(403, "forbidden", "Only an admin may delete an admin account.");
      if (user.role === "admin") await assertNotLastAdmin(user.id);
      request.auditDetails = { userId: user.id };
      // Its refresh tokens go with it (cascade); its access tokens stop at the next request.
      await prisma.user.delete({ where: { id: user.id } });
      return reply.code(204).send();
    },
  );
}
