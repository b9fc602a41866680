import type { PrismaClient } from "@gw/db";
import { BUILT_IN_ROLES, isBuiltInRole, normalizePermissions, type Permission } from "../auth/permissions.js";

/** The signed-in user of a management request, with the permissions of their role now. */
export interface Principal {
  userId: string;
  email: string;
  role: string;
  permissions: Permission[];
  isAdmin: boolean;
}

/**
 * Permissions come from the user's role as stored now, not from the token's claims: deleting a
 * user, or changing their role or a custom role's permissions, takes effect on their next request
 * rather than when their access token expires. (Admin traffic is light; two indexed reads.)
 */
export async function loadPrincipal(prisma: PrismaClient, userId: string): Promise<Principal | null> {
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user) return null;
  return {
    userId: user.id,
    email: user.email,
    role: user.role,
    permissions: await rolePermissions(prisma, user.role),
    isAdmin: user.role === "admin",
  };
}

/** A role's permissions: built-in ones from code, custom ones from the `roles` table (unknown: none). */
export async function rolePermissions(prisma: PrismaClient, role: string): Promise<Permission[]> {
  if (isBuiltInRole(role)) return [...BUILT_IN_ROLES[role as keyof typeof BUILT_IN_ROLES]];
  const custom = await prisma.role.findUnique({ where: { name: role } });
  return custom ? normalizePermissions(custom.permissions).permissions : [];
}
