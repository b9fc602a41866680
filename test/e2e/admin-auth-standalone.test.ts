import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { waitFor } from "@gw/testing";
import { type AdminClient, adminClient } from "../support/admin-client.js";
import { type RecordedEvent, recordEvents } from "../support/event-recorder.js";
import { testServiceContext } from "../support/silent-context.js";

type Session = {
  token: string;
  refreshToken: string;
  user: { id: string; role: string; permissions: string[] };
  error?: { code: string; type: string; message: string };
};

const ADMIN = { email: "Admin@Example.com", password: "correct horse battery" };
const CANARY = "canary-password-7f3a91";

// The management API's setup, authentication, users and roles, over real HTTP in standalone mode.
describe("management API: setup, auth, users, roles (standalone)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-admin-"));
  const context = testServiceContext("standalone");
  let handle: Awaited<ReturnType<typeof startStandalone>>;
  let api: AdminClient;
  let events: RecordedEvent[];
  let stopEvents: () => Promise<void>;
  let admin: Session;

  before(async () => {
    handle = await startStandalone(
      readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
      context,
    );
    api = adminClient(handle.url);
    const recorder = await recordEvents(handle.bus, "events.auth.>");
    events = recorder.events;
    stopEvents = recorder.stop;
  });

  after(async () => {
    await stopEvents?.();
    await context.shutdown.run("test done");
    rmSync(dataDir, { recursive: true, force: true });
  });

  const login = async (email: string, password: string) =>
    api.post<Session>("/auth/login", { email, password });

  it("setup: unconfigured, then exactly one first admin, then 403", async () => {
    assert.deepEqual((await api.get("/setup/status")).body, { configured: false });
    const weak = await api.post("/setup/first-admin", { email: ADMIN.email, password: "short" });
    assert.equal(weak.status, 400);
    assert.match(JSON.stringify(weak.body), /password/);
    // Two at once: one admin, one refusal.
    const [a, b] = await Promise.all([
      api.post<Session>("/setup/first-admin", ADMIN),
      api.post("/setup/first-admin", { email: "other@example.com", password: ADMIN.password }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [201, 403]);
    assert.deepEqual((await api.get("/setup/status")).body, { configured: true });
    const again = await api.post("/setup/first-admin", {
      email: "late@example.com",
      password: ADMIN.password,
    });
    assert.equal(again.status, 403);
    assert.equal((again.body.error as { code: string }).code, "already_configured");
    // Whichever of the two won is the admin.
    if (b.status === 201) ADMIN.email = "other@example.com";
    const answer = await login(ADMIN.email, ADMIN.password);
    assert.equal(answer.status, 200);
    admin = answer.body;
    assert.equal(admin.user.role, "admin");
    assert.ok(admin.user.permissions.includes("user:write"));
  });

  it("login: wrong password 401 with auth.login_failed, unknown email 401 without, then 429 after 5 failures", async () => {
    const wrong = await login(ADMIN.email, "not the password");
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body.error, {
      message: "Wrong email or password.",
      type: "authentication_error",
      code: "invalid_credentials",
    });
    const event = await waitFor(() => events.find((e) => e.event === "auth.login_failed"), {
      what: "auth.login_failed",
    });
    assert.equal(event.details.email, ADMIN.email.toLowerCase());
    assert.equal(JSON.stringify(event).includes("not the password"), false);
    const unknown = await login("nobody@example.com", "whatever-password");
    assert.equal(unknown.status, 401);
    for (let i = 0; i < 4; i++) await login(ADMIN.email, `wrong-${i}-password`);
    const locked = await login(ADMIN.email, ADMIN.password);
    assert.equal(locked.status, 429, "5 failures lock the account for a while, even with the right password");
  });

  it("JWT attacks are rejected: alg none, wrong key, expired, tampered", async () => {
    const [header, payload, signature] = admin.token.split(".") as [string, string, string];
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const forged = {
      none: `${b64({ alg: "none", typ: "JWT" })}.${payload}.`,
      wrongKey: `${header}.${payload}.${createHmac("sha256", "guessed").update(`${header}.${payload}`).digest("base64url")}`,
      expired: (() => {
        const body = b64({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 });
        return `${header}.${body}.${signature}`;
      })(),
      tampered: `${header}.${b64({ ...claims, role: "admin", sub: "usr_someone_else" })}.${signature}`,
      garbage: "not-a-jwt",
    };
    for (const [name, token] of Object.entries(forged)) {
      const answer = await api.get("/me", token);
      assert.equal(answer.status, 401, name);
      assert.equal((answer.body.error as { type: string }).type, "authentication_error", name);
    }
    assert.equal((await api.get("/me")).status, 401, "no token");
    assert.equal((await api.get("/me", admin.token)).status, 200);
  });

  it("refresh rotates; reusing a spent token revokes its whole family", async () => {
    // The account is locked by the previous test's failures: sessions come from the first login.
    const first = await api.post<Session>("/auth/refresh", { refreshToken: admin.refreshToken });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.refreshToken, admin.refreshToken);
    assert.equal((await api.get("/me", first.body.token)).status, 200);
    const reuse = await api.post("/auth/refresh", { refreshToken: admin.refreshToken });
    assert.equal(reuse.status, 401);
    assert.equal((reuse.body.error as { code: string }).code, "reused_refresh_token");
    // The family is gone: the token issued by the legitimate rotation is dead too.
    const afterTheft = await api.post("/auth/refresh", { refreshToken: first.body.refreshToken });
    assert.equal(afterTheft.status, 401);
    assert.equal((await api.post("/auth/refresh", { refreshToken: "rt_forged" })).status, 401);
    assert.equal((await api.post("/auth/refresh", {})).status, 400);
    admin = { ...admin, token: first.body.token };
  });

  it("users and roles: permissions per role, no escalation, last admin kept, built-ins fixed", async () => {
    const created = await api.post<{ id: string; role: string; passwordHash?: string }>(
      "/users",
      { email: "member@example.com", password: CANARY, role: "member" },
      admin.token,
    );
    assert.equal(created.status, 201);
    assert.equal(created.body.passwordHash, undefined);
    assert.equal(JSON.stringify(created.body).includes(CANARY), false);
    assert.equal(
      (
        await api.post(
          "/users",
          { email: "member@example.com", password: CANARY, role: "member" },
          admin.token,
        )
      ).status,
      409,
    );

    const member = (await login("member@example.com", CANARY)).body;
    assert.deepEqual(member.user.permissions.sort(), [
      "model:read",
      "project:read",
      "project:write",
      "proxy:use",
      "report:read",
      "settings:read",
    ]);
    // A member may not list users (admin only) nor create them (user:write).
    assert.equal((await api.get("/users", member.token)).status, 403);
    const forbidden = await api.post(
      "/users",
      { email: "x@example.com", password: CANARY, role: "viewer" },
      member.token,
    );
    assert.equal(forbidden.status, 403);
    assert.equal((forbidden.body.error as { type: string }).type, "permission_error");

    // A custom role with user:write, named by its stored-config alias, cannot grant admin.
    const role = await api.post(
      "/roles",
      {
        name: "people-ops",
        permissions: ["users:write", "usage:read", "project:read", "model:read", "settings:read"],
      },
      admin.token,
    );
    assert.equal(role.status, 201);
    assert.deepEqual(role.body, {
      name: "people-ops",
      permissions: ["project:read", "report:read", "model:read", "settings:read", "user:write"],
      builtIn: false,
    });
    assert.equal(
      (await api.post("/roles", { name: "bad", permissions: ["fly:high"] }, admin.token)).status,
      400,
    );
    assert.equal((await api.put("/roles/admin", { permissions: [] }, admin.token)).status, 400);
    assert.equal((await api.del("/roles/viewer", admin.token)).status, 400);
    await api.post("/users", { email: "ops@example.com", password: CANARY, role: "people-ops" }, admin.token);
    const ops = (await login("ops@example.com", CANARY)).body;
    const escalate = await api.post(
      "/users",
      { email: "evil@example.com", password: CANARY, role: "admin" },
      ops.token,
    );
    assert.equal(escalate.status, 403);
    const viewer = await api.post<{ id: string }>(
      "/users",
      { email: "viewer@example.com", password: CANARY, role: "viewer" },
      ops.token,
    );
    assert.equal(viewer.status, 201);
    assert.equal((await api.del("/roles/people-ops", admin.token)).status, 409, "the role is in use");

    // Permission changes apply at the next request, not at token expiry.
    await api.put("/roles/people-ops", { permissions: ["report:read"] }, admin.token);
    assert.equal(
      (await api.post("/users", { email: "y@example.com", password: CANARY, role: "viewer" }, ops.token))
        .status,
      403,
    );

    // The last admin cannot be demoted or deleted.
    const adminId = admin.user.id;
    assert.equal((await api.put(`/users/${adminId}`, { role: "member" }, admin.token)).status, 409);
    assert.equal((await api.del(`/users/${adminId}`, admin.token)).status, 409);
    // A deleted user's access token stops working at once.
    assert.equal((await api.del(`/users/${viewer.body.id}`, admin.token)).status, 204);
    assert.equal((await api.get(`/users/${viewer.body.id}`, admin.token)).status, 404);
    const listed = await api.get<{ users: { email: string }[] }>("/users", admin.token);
    assert.deepEqual(
      listed.body.users.map((u) => u.email).sort(),
      [ADMIN.email.toLowerCase(), "member@example.com", "ops@example.com"].sort(),
    );
  });

  it("me: reading and changing the profile needs the current password; a new password ends other sessions", async () => {
    const session = (await login("member@example.com", CANARY)).body;
    const me = await api.get<{ email: string; role: string }>("/me", session.token);
    assert.equal(me.body.email, "member@example.com");
    assert.equal((await api.put("/me", { newPassword: "another long password" }, session.token)).status, 400);
    assert.equal(
      (
        await api.put(
          "/me",
          { currentPassword: "wrong", newPassword: "another long password" },
          session.token,
        )
      ).status,
      400,
    );
    const changed = await api.put(
      "/me",
      { currentPassword: CANARY, newPassword: "another long password" },
      session.token,
    );
    assert.equal(changed.status, 200);
    assert.equal((await api.post("/auth/refresh", { refreshToken: session.refreshToken })).status, 401);
    assert.equal((await login("member@example.com", "another long password")).status, 200);
  });

  it("audits every change and every forbidden attempt, with no secret in any entry", async () => {
    const rows = await waitFor(
      async () => {
        const found = await handle.db.prisma.auditEntry.findMany();
        return found.some((r) => r.action === "profile:update") ? found : undefined;
      },
      { timeoutMs: 10_000, what: "audit rows" },
    );
    const summary = rows.map((r) => `${r.action}:${r.result}`);
    for (const expected of [
      "setup:first-admin:success",
      "user:create:success",
      "user:create:forbidden",
      "role:create:success",
      "role:update:error",
      "user:update:error",
      "user:delete:success",
      "profile:update:success",
    ])
      assert.ok(summary.includes(expected), `${expected} in ${summary.join(", ")}`);
    const forbiddenList = rows.find((r) => r.result === "forbidden" && r.endpoint === "GET /api/users");
    assert.ok(forbiddenList, "a forbidden read is audited too");
    const everything = JSON.stringify(rows);
    for (const secret of [CANARY, ADMIN.password, "another long password", "scrypt$"])
      assert.equal(everything.includes(secret), false, `audit rows hold no ${secret}`);
  });
});
