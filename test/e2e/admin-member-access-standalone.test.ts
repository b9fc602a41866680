import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

// Project member roles add to the global role for one project: viewer reads, editor also changes
// the project and its tokens; deleting it and managing members stay with global project:write.
describe("project member roles", () => {
  let gateway: AdminGateway;
  before(async () => {
    gateway = await startAdminGateway("admin-members");
  });
  after(() => gateway?.stop());

  it("grant read (viewer) and write (editor) on that project only", async () => {
    const { api, adminToken } = gateway;
    assert.equal((await api.post("/roles", { name: "nobody", permissions: [] }, adminToken)).status, 201);
    const user = await gateway.userWithRole("nobody");
    const mine = await api.post<{ slug: string; id: string }>("/projects", { name: "Mine" }, adminToken);
    const other = await api.post<{ slug: string }>("/projects", { name: "Other" }, adminToken);
    const slug = mine.body.slug;
    assert.equal((await api.get(`/projects/${slug}`, user.token)).status, 403);

    assert.equal(
      (await api.post(`/projects/${slug}/members`, { userId: user.id, role: "viewer" }, adminToken)).status,
      201,
    );
    assert.equal((await api.get(`/projects/${slug}`, user.token)).status, 200);
    assert.equal((await api.get(`/projects/${slug}/tokens`, user.token)).status, 200);
    assert.equal((await api.put(`/projects/${slug}`, { name: "Renamed" }, user.token)).status, 403);
    assert.equal(
      (await api.get(`/projects/${other.body.slug}`, user.token)).status,
      403,
      "another project stays closed",
    );

    assert.equal(
      (await api.put(`/projects/${slug}/members/${user.id}`, { role: "editor" }, adminToken)).status,
      200,
    );
    assert.equal((await api.put(`/projects/${slug}`, { name: "Renamed" }, user.token)).status, 200);
    assert.equal(
      (
        await api.call("PATCH", `/projects/${mine.body.id}/guardrails`, {
          token: user.token,
          body: { pii: null },
        })
      ).status,
      200,
    );
    const token = await api.post<{ id: string }>(
      `/projects/${slug}/tokens`,
      { name: "editor-made" },
      user.token,
    );
    assert.equal(token.status, 201);
    assert.equal((await api.del(`/projects/${slug}/tokens/${token.body.id}`, user.token)).status, 204);
    // Not an editor's: members and the project's deletion; nor the project list.
    assert.equal(
      (await api.post(`/projects/${slug}/members`, { userId: user.id, role: "editor" }, user.token)).status,
      403,
    );
    assert.equal((await api.del(`/projects/${slug}`, user.token)).status, 403);
    assert.equal((await api.get("/projects", user.token)).status, 403);
    assert.equal((await api.put(`/projects/${other.body.slug}`, { name: "x" }, user.token)).status, 403);
  });
});
