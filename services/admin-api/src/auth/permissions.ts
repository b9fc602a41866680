/**
 * Permission names of the management API, the built-in roles, and the aliases accepted from
 * stored role configuration.
 *
 * `model:write` is our name for creating, updating and deleting models (the spec names only
 * `model:read`): `admin` has it, `member` and `viewer` do not, so members cannot change models.
 */

export const PERMISSIONS = [
  "project:read",
  "project:write",
  "report:read",
  "model:read",
  "model:write",
  "settings:read",
  "settings:write",
  "user:write",
  "audit:read",
  "proxy:use",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export type BuiltInRole = "admin" | "member" | "viewer";

export const BUILT_IN_ROLES: Record<BuiltInRole, readonly Permission[]> = Object.freeze({
  admin: Object.freeze([...PERMISSIONS]),
  member: Object.freeze([
    "project:read",
    "project:write",
    "report:read",
    "model:read",
    "settings:read",
    "proxy:use",
  ] as const),
  viewer: Object.freeze(["project:read", "report:read", "model:read", "settings:read"] as const),
});

/**
 * Names a stored role may use, each mapped to canonical permissions. Stored configuration spells
 * some names in the plural (`projects:write`) or by area (`usage:read` for reports); every
 * canonical name also maps to itself, so this is the one table normalisation reads.
 */
export const PERMISSION_ALIASES: Record<string, Permission[]> = {
  ...Object.fromEntries(PERMISSIONS.map((permission): [string, Permission[]] => [permission, [permission]])),
  "models:write": ["model:write"],
  "projects:write": ["project:write"],
  "users:write": ["user:write"],
  // Roles are managed by whoever manages users; there is no separate role permission.
  "roles:write": ["user:write"],
  "usage:read": ["report:read"],
};

/** Project member roles, set per project on a user. */
export const PROJECT_MEMBER_ROLES = ["viewer", "editor"] as const;

export type ProjectMemberRole = (typeof PROJECT_MEMBER_ROLES)[number];

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function isBuiltInRole(name: string): name is BuiltInRole {
  return typeof name === "string" && Object.hasOwn(BUILT_IN_ROLES, name);
}

/**
 * Canonical permissions for stored names: aliases resolved, duplicates removed, in PERMISSIONS
 * order (so equal sets compare and serialise equal). Names that mean nothing are returned apart,
 * once each, for the caller to refuse (a role write) or log (a stored config).
 */
export function normalizePermissions(names: string[]): { permissions: Permission[]; unknown: string[] } {
  const granted = new Set<Permission>();
  const unknown = new Set<string>();
  for (const name of names) {
    // hasOwn, not `in` or a plain lookup: "constructor" or "__proto__" must not resolve.
    if (typeof name === "string" && Object.hasOwn(PERMISSION_ALIASES, name)) {
      for (const permission of PERMISSION_ALIASES[name]!) granted.add(permission);
    } else {
      unknown.add(String(name));
    }
  }
  return {
    permissions: PERMISSIONS.filter((permission) => granted.has(permission)),
    unknown: [...unknown],
  };
}
