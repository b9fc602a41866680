import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BUILT_IN_ROLES,
  isBuiltInRole,
  isPermission,
  normalizePermissions,
  PERMISSION_ALIASES,
  PERMISSIONS,
  PROJECT_MEMBER_ROLES,
} from "./permissions.js";

describe("permissions", () => {
  it("lists the ten permission names", () => {
    assert.deepEqual(
      [...PERMISSIONS],
      [
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
      ],
    );
    assert.equal(isPermission("model:write"), true);
    assert.equal(isPermission("models:write"), false);
  });
});

describe("built-in roles", () => {
  it("admin has every permission", () => {
    assert.deepEqual([...BUILT_IN_ROLES.admin], [...PERMISSIONS]);
  });

  it("member reads and writes projects, reads the rest, uses the proxy, and cannot write models", () => {
    assert.deepEqual(
      [...BUILT_IN_ROLES.member],
      ["project:read", "project:write", "report:read", "model:read", "settings:read", "proxy:use"],
    );
    assert.ok(!BUILT_IN_ROLES.member.includes("model:write"));
    assert.ok(!BUILT_IN_ROLES.member.includes("user:write"));
  });

  it("viewer only reads", () => {
    assert.deepEqual(
      [...BUILT_IN_ROLES.viewer],
      ["project:read", "report:read", "model:read", "settings:read"],
    );
    assert.ok(BUILT_IN_ROLES.viewer.every((permission) => permission.endsWith(":read")));
  });

  it("are already normalised and cannot be modified at run time", () => {
    for (const permissions of Object.values(BUILT_IN_ROLES)) {
      assert.deepEqual(normalizePermissions([...permissions]), {
        permissions: [...permissions],
        unknown: [],
      });
    }
    assert.throws(() => (BUILT_IN_ROLES.viewer as string[]).push("user:write"), TypeError);
    assert.throws(() => {
      (BUILT_IN_ROLES as Record<string, unknown>).viewer = BUILT_IN_ROLES.admin;
    }, TypeError);
  });

  it("isBuiltInRole knows exactly admin, member and viewer", () => {
    for (const name of ["admin", "member", "viewer"]) assert.equal(isBuiltInRole(name), true);
    for (const name of ["Admin", "editor", "auditor", "", "constructor", "__proto__", "toString"]) {
      assert.equal(isBuiltInRole(name), false, name);
    }
  });

  it("project member roles are viewer and editor", () => {
    assert.deepEqual([...PROJECT_MEMBER_ROLES], ["viewer", "editor"]);
  });
});

describe("aliases", () => {
  it("map stored-config names to canonical permissions", () => {
    assert.deepEqual(PERMISSION_ALIASES["models:write"], ["model:write"]);
    assert.deepEqual(PERMISSION_ALIASES["projects:write"], ["project:write"]);
    assert.deepEqual(PERMISSION_ALIASES["users:write"], ["user:write"]);
    assert.deepEqual(PERMISSION_ALIASES["roles:write"], ["user:write"]);
    assert.deepEqual(PERMISSION_ALIASES["settings:write"], ["settings:write"]);
    assert.deepEqual(PERMISSION_ALIASES["usage:read"], ["report:read"]);
    assert.deepEqual(PERMISSION_ALIASES["proxy:use"], ["proxy:use"]);
  });

  it("map every canonical name to itself and only to canonical names", () => {
    for (const permission of PERMISSIONS) assert.deepEqual(PERMISSION_ALIASES[permission], [permission]);
    for (const targets of Object.values(PERMISSION_ALIASES)) {
      for (const target of targets) assert.ok(isPermission(target), target);
    }
  });
});

describe("normalizePermissions", () => {
  it("resolves aliases, removes duplicates and sorts in PERMISSIONS order", () => {
    assert.deepEqual(
      normalizePermissions(["proxy:use", "usage:read", "projects:write", "report:read", "project:write"]),
      { permissions: ["project:write", "report:read", "proxy:use"], unknown: [] },
    );
    assert.deepEqual(normalizePermissions(["roles:write", "users:write", "models:write", "settings:write"]), {
      permissions: ["model:write", "settings:write", "user:write"],
      unknown: [],
    });
  });

  it("returns unknown names apart, once each, in input order", () => {
    assert.deepEqual(
      normalizePermissions([
        "billing:write",
        "model:read",
        "Project:Read",
        "billing:write",
        " audit:read",
        "",
      ]),
      { permissions: ["model:read"], unknown: ["billing:write", "Project:Read", " audit:read", ""] },
    );
  });

  it("does not resolve names inherited from Object.prototype", () => {
    assert.deepEqual(normalizePermissions(["constructor", "__proto__", "toString", "hasOwnProperty"]), {
      permissions: [],
      unknown: ["constructor", "__proto__", "toString", "hasOwnProperty"],
    });
  });

  it("treats non-string entries from stored config as unknown instead of throwing", () => {
    assert.deepEqual(normalizePermissions([42, null, "audit:read"] as unknown as string[]), {
      permissions: ["audit:read"],
      unknown: ["42", "null"],
    });
  });

  it("handles an empty list", () => {
    assert.deepEqual(normalizePermissions([]), { permissions: [], unknown: [] });
  });
});
