import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { BUILT_IN_ROLES, isBuiltInRole, normalizePermissions } from "../auth/permissions.js";
import type { AdminDeps } from "../deps.js";
import { AdminError, AdminErrors } from "../errors.js";
import { parseWith } from "../validate.js";

const permissionList = z.array(z.string()).max(100);
const createRole = z.strictObject({
  name: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1-63 lowercase letters, digits, - or _"),
  permissions: permissionList,
});
const updateRole = z.strictObject({ permissions: permissionList });

/** Custom roles; the built-in `admin`, `member`, `viewer` are listed but never stored or changed. */
export function registerRoleRoutes(api: FastifyInstance, deps: AdminDeps): void {
  const { prisma } = deps;

  const canonical = (names: string[]) => {
    const { permissions, unknown } = normalizePermissions(names);
    if (unknown.length > 0)
      throw AdminErrors.invalid(`permissions: unknown permission ${unknown.join(", ")}`);
    return permissions;
  };
  const builtInRefusal = (name: string) =>
    new AdminError(400, "built_in_role", `"${name}" is a built-in role: it cannot be changed or deleted.`);

  api.get("/roles", async () => {
    const custom = await prisma.role.findMany({ orderBy: { name: "asc" } });
    return {
      roles: [
        ...Object.entries(BUILT_IN_ROLES).map(([name, permissions]) => ({
          name,
          permissions,
          builtIn: true,
        })),
        ...custom.map((r) => ({
          name: r.name,
          permissions: normalizePermissions(r.permissions).permissions,
          builtIn: false,
        })),
      ],
    };
  });

  api.post(
    "/roles",
    { config: { body: createRole, permission: "user:write", action: "role:create" } },
    async (request, reply) => {
      const body = parseWith(createRole, request.body);
      if (isBuiltInRole(body.name)) throw builtInRefusal(body.name);
      const permissions = canonical(body.permissions);
      if (await prisma.role.findUnique({ where: { name: body.name } }))
        throw AdminErrors.conflict(`A role named "${body.name}" exists.`);
      request.auditDetails = { role: body.name, permissions };
      const role = await prisma.role.create({ data: { name: body.name, permissions } });
      return reply.code(201).send({ name: role.name, permissions, builtIn: false });
    },
  );

  api.put<{ Params: { name: string } }>(
    "/roles/:name",
    { config: { body: updateRole, permission: "user:write", action: "role:update" } },
    async (request) => {
      const { name } = request.params;
      if (isBuiltInRole(name)) throw builtInRefusal(name);
      const body = parseWith(updateRole, request.body);
      const permissions = canonical(body.permissions);
      if (!(await prisma.role.findUnique({ where: { name } })))
        throw AdminErrors.notFound(`The role "${name}"`);
      request.auditDetails = { role: name, permissions };
      await prisma.role.update({ where: { name }, data: { permissions } });
      return { name, permissions, builtIn: false };
    },
  );

  api.delete<{ Params: { name: string } }>(
    "/roles/:name",
    { config: { permission: "user:write", action: "role:delete" } },
    async (request, reply) => {
      const { name } = request.params;
      if (isBuiltInRole(name)) throw builtInRefusal(name);
      if (!(await prisma.role.findUnique({ where: { name } })))
        throw AdminErrors.notFound(`The role "${name}"`);
      const holders = await prisma.user.count({ where: { role: name } });
      if (holders > 0) throw AdminErrors.conflict(`${holders} user(s) still have the role "${name}".`);
      await prisma.role.delete({ where: { name } });
      return reply.code(204).send();
    },
  );
}
