import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

const ROLES = {
  admin: "*",
  member: ["project:read", "project:write", "report:read", "model:read", "settings:read", "proxy:use"],
  viewer: ["project:read", "report:read", "model:read", "settings:read"],
} as const;

/**
 * The permission table: SPEC.md's "Management API" (and DESIGN.md section 4 for built-in roles);
 * "public" = no token, "token" = any signed-in user. Where SPEC names none: `model:write` guards
 * model writes, user reads and writes by id need `user:write`, and roles are readable by anyone
 * signed in. The served document must declare exactly this.
 */
const EXPECTED: Record<string, string> = {
  "POST /api/setup/first-admin": "public",
  "GET /api/setup/status": "public",
  "POST /api/auth/login": "public",
  "POST /api/auth/refresh": "public",
  "GET /api/system/info": "public",
  "GET /api/openapi.json": "public",
  "GET /api/me": "token",
  "PUT /api/me": "token",
  "GET /api/users": "admin",
  "POST /api/users": "user:write",
  "GET /api/users/{id}": "user:write",
  "PUT /api/users/{id}": "user:write",
  "DELETE /api/users/{id}": "user:write",
  "GET /api/roles": "token",
  "POST /api/roles": "user:write",
  "PUT /api/roles/{name}": "user:write",
  "DELETE /api/roles/{name}": "user:write",
  "GET /api/models": "model:read",
  "POST /api/models": "model:write",
  "GET /api/models/{id}": "model:read",
  "PUT /api/models/{id}": "model:write",
  "DELETE /api/models/{id}": "model:write",
  "POST /api/models/{id}/apikey": "model:write",
  "GET /api/projects": "project:read",
  "POST /api/projects": "project:write",
  "GET /api/projects/{slug}": "project:read",
  "PUT /api/projects/{slug}": "project:write",
  "DELETE /api/projects/{slug}": "project:write",
  "PATCH /api/projects/{id}/guardrails": "project:write",
  "GET /api/projects/{slug}/tokens": "project:read",
  "POST /api/projects/{slug}/tokens": "project:write",
  "PUT /api/projects/{slug}/tokens/{tokenId}": "project:write",
  "DELETE /api/projects/{slug}/tokens/{tokenId}": "project:write",
  "GET /api/projects/{slug}/members": "project:read",
  "POST /api/projects/{slug}/members": "project:write",
  "PUT /api/projects/{slug}/members/{userId}": "project:write",
  "DELETE /api/projects/{slug}/members/{userId}": "project:write",
  "GET /api/spend-groups": "report:read",
  "POST /api/spend-groups": "project:write",
  "PUT /api/spend-groups/{id}": "project:write",
  "DELETE /api/spend-groups/{id}": "project:write",
  "GET /api/settings": "token",
  "PUT /api/settings": "settings:write",
  "GET /api/providers": "model:read",
  "GET /api/catalog/status": "settings:read",
  "POST /api/catalog/refresh": "settings:write",
  "GET /api/system/update-check": "token",
  "POST /api/system/update": "admin",
  "GET /api/audit": "audit:read",
  "GET /api/integrations": "settings:write",
  "POST /api/integrations": "settings:write",
  "GET /api/integrations/{id}": "settings:write",
  "PATCH /api/integrations/{id}": "settings:write",
  "DELETE /api/integrations/{id}": "settings:write",
  "POST /api/integrations/{id}/test": "settings:write",
  // The Prometheus scrape: no access token; an enabled prometheus integration (and its authToken) guards it.
  "GET /api/metrics": "public",
  "GET /api/usage": "report:read",
  "GET /api/usage/{id}": "report:read",
  "GET /api/traces/{id}": "report:read",
  "GET /api/end-users": "report:read",
};

interface Operation {
  method: string;
  path: string;
  public: boolean;
  permission?: string;
}

/** Every management operation, from the served OpenAPI document (collected from the routes themselves). */
function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      // Path parameters get ids that exist nowhere: a permitted call then answers 400 or 404.
      path: path.replace(/\{[^}]+\}/g, "matrix-missing"),
      public: Array.isArray(operation.security) && (operation.security as unknown[]).length === 0,
      ...(typeof operation["x-permission"] === "string"
        ? { permission: operation["x-permission"] as string }
        : {}),
    })),
  );
}

function allowed(role: keyof typeof ROLES, permission: string | undefined): boolean {
  if (!permission) return true;
  if (role === "admin") return true;
  if (permission === "admin") return false;
  return (ROLES[role] as readonly string[]).includes(permission);
}

// Every endpoint, with no token and with each built-in role, against the permission table.
describe("management API permission matrix", () => {
  let gateway: AdminGateway;
  const tokens: Record<string, string> = {};

  before(async () => {
    gateway = await startAdminGateway("admin-matrix");
    tokens.admin = gateway.adminToken;
    tokens.member = (await gateway.userWithRole("member")).token;
    tokens.viewer = (await gateway.userWithRole("viewer")).token;
  });

  after(() => gateway?.stop());

  it("declares exactly the permission table", async () => {
    const document = await gateway.api.get<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>("/openapi.json");
    const declared: Record<string, string> = {};
    for (const [path, methods] of Object.entries(document.body.paths))
      for (const [method, operation] of Object.entries(methods))
        declared[`${method.toUpperCase()} ${path}`] =
          (operation["x-permission"] as string | undefined) ??
          (Array.isArray(operation.security) && operation.security.length === 0 ? "public" : "token");
    assert.deepEqual(declared, EXPECTED);
    // Bodies and queries come from the handlers' own schemas.
    const paths = document.body.paths as Record<string, Record<string, Record<string, unknown>>>;
    const modelBody = paths["/api/models"]!.post!.requestBody as {
      content: {
        "application/json": { schema: { properties: Record<string, unknown>; required: string[] } };
      };
    };
    const schema = modelBody.content["application/json"].schema;
    assert.ok(schema.required.includes("id") && schema.required.includes("provider"));
    assert.ok("pricingTiers" in schema.properties && "fieldOverrides" in schema.properties);
    const auditQuery = paths["/api/audit"]!.get!.parameters as { name: string; in: string }[];
    assert.deepEqual(
      auditQuery
        .filter((p) => p.in === "query")
        .map((p) => p.name)
        .sort(),
      ["action", "from", "page", "pageSize", "result", "to", "userId"],
    );
    const bodies = Object.values(paths).flatMap((methods) =>
      Object.entries(methods).filter(
        ([method]) => method === "post" || method === "put" || method === "patch",
      ),
    );
    const withoutBody = bodies
      .filter(([, op]) => !op.requestBody)
      .map(([method, op]) => `${method} ${op.operationId}`);
    // Only calls whose body is optional or empty by design go without one.
    assert.deepEqual(withoutBody.sort(), [
      "post post_api_catalog_refresh",
      "post post_api_integrations_id_test",
      "post post_api_system_update",
    ]);
  });

  it("answers 401 without a token, 403 without the permission, and never 401/403 with it", async () => {
    const document = await gateway.api.get<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>("/openapi.json");
    assert.equal(document.status, 200);
    const operations = operationsOf(document.body);
    assert.ok(operations.length >= 40, `only ${operations.length} operations documented`);
    const mismatches: string[] = [];
    for (const op of operations) {
      const path = op.path.replace(/^\/api/, "");
      const body = op.method === "GET" || op.method === "DELETE" ? undefined : {};
      const anonymous = await gateway.api.call(op.method, path, { body });
      if (op.public ? anonymous.status === 401 : anonymous.status !== 401)
        mismatches.push(`${op.method} ${op.path} without token: ${anonymous.status}`);
      if (op.public) continue;
      for (const role of Object.keys(ROLES) as (keyof typeof ROLES)[]) {
        const answer = await gateway.api.call(op.method, path, { body, token: tokens[role] });
        const expectAllowed = allowed(role, op.permission);
        const refused = answer.status === 401 || answer.status === 403;
        if (expectAllowed === refused || answer.status >= 500)
          mismatches.push(
            `${op.method} ${op.path} as ${role} (needs ${op.permission ?? "a token"}): ${answer.status}`,
          );
      }
    }
    assert.deepEqual(mismatches, []);
  });
});
