import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

// `Idempotency-Key` on create endpoints: a repeat replays the first answer instead of creating twice.
describe("management API idempotency keys", () => {
  let gateway: AdminGateway;
  before(async () => {
    gateway = await startAdminGateway("admin-idempotency");
  });
  after(() => gateway?.stop());

  const create = (key: string | undefined, name: string, token = gateway.adminToken) =>
    gateway.api.call("POST", "/roles", {
      token,
      body: { name, permissions: ["report:read"] },
      ...(key === undefined ? {} : { headers: { "idempotency-key": key } }),
    });

  it("replays the first answer for a repeated key, and creates once", async () => {
    const first = await create("key-1", "analysts");
    assert.equal(first.status, 201);
    const again = await create("key-1", "analysts");
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get("idempotency-replayed"), "true");
    // Without the key, the same create is a conflict: the role exists once.
    assert.equal((await create(undefined, "analysts")).status, 409);
    const roles = await gateway.api.get<{ roles: { name: string }[] }>("/roles", gateway.adminToken);
    assert.equal(roles.body.roles.filter((r) => r.name === "analysts").length, 1);
  });

  it("keeps a refused answer too, scopes keys per user, and bounds the key", async () => {
    const bad = await create("key-2", "Not Valid!");
    assert.equal(bad.status, 400);
    assert.deepEqual((await create("key-2", "Not Valid!")).body, bad.body);
    const other = await gateway.userWithRole("admin");
    // Another user's key of the same name is theirs: it runs (and conflicts on the existing role).
    assert.equal((await create("key-1", "analysts", other.token)).status, 409);
    assert.equal((await create("x".repeat(201), "long-key")).status, 400);
  });

  it("concurrent repeats create once: one runs, the others replay or wait", async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => create("key-3", "concurrent-role")));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1);
    assert.ok(
      answers.every((a) => a.status === 201 || a.status === 409),
      answers.map((a) => a.status).join(),
    );
    const roles = await gateway.api.get<{ roles: { name: string }[] }>("/roles", gateway.adminToken);
    assert.equal(roles.body.roles.filter((r) => r.name === "concurrent-role").length, 1);
  });
});
