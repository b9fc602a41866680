import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

type Limit = { metric: string; windowType: string; period: string; value: number; warnAt?: number };
type Group = {
  id: string;
  name: string;
  limits: Limit[];
  projectIds: string[];
  tokenIds: string[];
  parentGroupId: string | null;
  createdAt: string;
  updatedAt: string;
  usage?:
    | {
        metric: string;
        windowType: string;
        period: string;
        limit: number;
        current: number;
        remaining: number;
      }[]
    | null;
};
type ErrorBody = { error: { message: string; type: string; code: string } };

const costMonthly = (value: number): Limit => ({
  metric: "cost",
  windowType: "period",
  period: "monthly",
  value,
});
const callsHourly = (value: number): Limit => ({
  metric: "calls",
  windowType: "rolling",
  period: "hour",
  value,
});

// Spend groups (SPEC "Spend groups"): the cascade rules, usage from the budget service, permissions.
describe("management API: spend groups (standalone)", () => {
  let gw: AdminGateway;
  let admin: string;
  let member: string;
  let viewer: string;
  const projectId = "proj_sgtest0000000000001";
  const tokenId = "tok_sgtest00000000000001";
  let org: Group;
  let team: Group;
  let key: Group;

  before(async () => {
    gw = await startAdminGateway("spend-groups");
    admin = gw.adminToken;
    member = (await gw.userWithRole("member")).token;
    viewer = (await gw.userWithRole("viewer")).token;
    const prisma = gw.handle.db.prisma;
    await prisma.project.create({ data: { id: projectId, name: "Acme", slug: "acme-sg" } });
    await prisma.projectToken.create({
      data: { id: tokenId, projectId, name: "ci", tokenHash: "0".repeat(64), prefix: "sk-rt-test" },
    });
  });

  after(async () => gw?.stop());

  const create = (body: unknown, token = admin) =>
    gw.api.post<Group & ErrorBody>("/spend-groups", body, token);
  const update = (id: string, body: unknown, token = admin) =>
    gw.api.put<Group & ErrorBody>(`/spend-groups/${id}`, body, token);

  it("creates a chain organisation > team > key", async () => {
    const a = await create({ name: "Org", limits: [costMonthly(100), callsHourly(1000)] });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    org = a.body;
    assert.match(org.id, /^sg_/);
    assert.deepEqual(org.limits, [costMonthly(100), callsHourly(1000)]);
    assert.deepEqual([org.projectIds, org.tokenIds, org.parentGroupId], [[], [], null]);
    assert.ok(!Number.isNaN(Date.parse(org.createdAt)) && !Number.isNaN(Date.parse(org.updatedAt)));

    const b = await create({
      name: "Team",
      parentGroupId: org.id,
      limits: [costMonthly(50)],
      projectIds: [projectId],
    });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    team = b.body;
    assert.equal(team.parentGroupId, org.id);
    assert.deepEqual(team.projectIds, [projectId]);

    const c = await create({
      name: "Key",
      parentGroupId: team.id,
      limits: [{ ...costMonthly(10), warnAt: 90 }],
      tokenIds: [tokenId, tokenId],
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    key = c.body;
    assert.deepEqual(key.tokenIds, [tokenId], "ids are kept once");
    assert.equal(key.limits[0]!.warnAt, 90);
  });

  it("refuses a child limit above its parent's or any ancestor's matching limit", async () => {
    const aboveParent = await create({ name: "Big", parentGroupId: team.id, limits: [costMonthly(60)] });
    assert.equal(aboveParent.status, 400);
    assert.equal(aboveParent.body.error.code, "spend_group_limit_above_parent");
    assert.match(aboveParent.body.error.message, /limits\[0\].*parent group "Team"/);
    // Team has no calls limit; the organisation's still binds the grandchild.
    const aboveAncestor = await create({
      name: "Chatty",
      parentGroupId: team.id,
      limits: [callsHourly(2000)],
    });
    assert.equal(aboveAncestor.status, 400);
    assert.match(aboveAncestor.body.error.message, /ancestor group "Org"/);
    // Another window is not "matching": no bound.
    const otherWindow = await create({
      name: "Daily",
      parentGroupId: team.id,
      limits: [{ metric: "cost", windowType: "period", period: "daily", value: 500 }],
    });
    assert.equal(otherWindow.status, 201);
    assert.equal((await gw.api.del(`/spend-groups/${otherWindow.body.id}`, admin)).status, 204);
  });

  it("refuses unknown references and malformed bodies with 400 naming the field", async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: "X", parentGroupId: "sg_nope" }, /parentGroupId: no spend group/],
      [{ name: "X", projectIds: ["proj_nope"] }, /projectIds: .*proj_nope/],
      [{ name: "X", tokenIds: ["tok_nope"] }, /tokenIds: .*tok_nope/],
      [{ limits: [] }, /name/],
      [{ name: "  " }, /name: is required/],
      [{ name: "X", limits: [{ ...costMonthly(1), metric: "euros" }] }, /limits\.0\.metric/],
      [
        { name: "X", limits: [{ ...callsHourly(1), period: "daily" }] },
        /limits\.0\.period: must be one of second/,
      ],
      [
        { name: "X", limits: [{ ...costMonthly(1), period: "hour" }] },
        /limits\.0\.period: must be one of hourly/,
      ],
      [{ name: "X", limits: [costMonthly(-1)] }, /limits\.0\.value/],
      [{ name: "X", limits: [costMonthly(1), costMonthly(2)] }, /limits\.1: repeats limits\[0\]/],
      [{ name: "X", color: "red" }, /color/],
    ];
    for (const [body, message] of cases) {
      const answer = await create(body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.type, "invalid_request_error");
      assert.match(answer.body.error.message, message, JSON.stringify(answer.body));
    }
  });

  it("updates: not its own parent nor ancestor, never below a child's limit", async () => {
    const ownParent = await update(org.id, { parentGroupId: org.id });
    assert.equal(ownParent.status, 400);
    assert.match(ownParent.body.error.message, /own parent/);
    const ownAncestor = await update(org.id, { parentGroupId: key.id });
    assert.equal(ownAncestor.status, 400);
    assert.match(ownAncestor.body.error.message, /own ancestor/);
    const belowChild = await update(org.id, { limits: [costMonthly(20), callsHourly(1000)] });
    assert.equal(belowChild.status, 400);
    assert.equal(belowChild.body.error.code, "spend_group_limit_below_child");
    assert.match(belowChild.body.error.message, /child group "Team"/);
    const unknownParent = await update(team.id, { parentGroupId: "sg_missing" });
    assert.equal(unknownParent.status, 400);
    assert.equal((await update("sg_missing", { name: "Y" })).status, 404);
    assert.equal((await update(team.id, { limits: [costMonthly(101)] })).status, 400);

    const renamed = await update(team.id, { name: "Platform team", limits: [costMonthly(40)] });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.name, "Platform team");
    assert.deepEqual(renamed.body.limits, [costMonthly(40)]);
    assert.deepEqual(renamed.body.projectIds, [projectId], "omitted fields stay");
    assert.equal(renamed.body.parentGroupId, org.id);
    // Detach and reattach: null clears the parent.
    assert.equal((await update(team.id, { parentGroupId: null })).body.parentGroupId, null);
    assert.equal((await update(team.id, { parentGroupId: org.id })).body.parentGroupId, org.id);
  });

  it("lists every group with its usage from the budget service", async () => {
    const list = await gw.api.get<{ spendGroups: Group[] }>("/spend-groups", viewer);
    assert.equal(list.status, 200);
    const byId = new Map(list.body.spendGroups.map((g) => [g.id, g]));
    assert.deepEqual([...byId.keys()], [org.id, team.id, key.id]);
    const orgUsage = byId.get(org.id)!.usage;
    assert.ok(Array.isArray(orgUsage), JSON.stringify(byId.get(org.id)));
    assert.deepEqual(orgUsage, [
      { metric: "cost", windowType: "period", period: "monthly", limit: 100, current: 0, remaining: 100 },
      { metric: "calls", windowType: "rolling", period: "hour", limit: 1000, current: 0, remaining: 1000 },
    ]);
    assert.deepEqual(byId.get(team.id)!.usage, [
      { metric: "cost", windowType: "period", period: "monthly", limit: 40, current: 0, remaining: 40 },
    ]);
    assert.equal(byId.get(key.id)!.parentGroupId, team.id);
  });

  it("deletes: 409 while child groups remain, 204 for a leaf, then 404", async () => {
    const blocked = await gw.api.del(`/spend-groups/${org.id}`, admin);
    assert.equal(blocked.status, 409);
    assert.match(JSON.stringify(blocked.body), new RegExp(team.id));
    assert.equal((await gw.api.del(`/spend-groups/${key.id}`, admin)).status, 204);
    assert.equal((await gw.api.del(`/spend-groups/${key.id}`, admin)).status, 404);
  });

  it("needs a token (401), report:read to list and project:write to change (403)", async () => {
    assert.equal((await gw.api.get("/spend-groups")).status, 401);
    assert.equal((await create({ name: "Anon" }, "")).status, 401);
    assert.equal((await create({ name: "Viewer's" }, viewer)).status, 403);
    assert.equal((await update(team.id, { name: "Viewer's" }, viewer)).status, 403);
    assert.equal((await gw.api.del(`/spend-groups/${team.id}`, viewer)).status, 403);
    // member holds project:write
    const made = await create({ name: "Member's", parentGroupId: org.id, limits: [costMonthly(5)] }, member);
    assert.equal(made.status, 201);
    assert.equal((await update(made.body.id, { name: "Member's group" }, member)).status, 200);
    assert.equal((await gw.api.del(`/spend-groups/${made.body.id}`, member)).status, 204);
    assert.equal((await gw.api.get("/spend-groups", member)).status, 200);
  });

  it("audits each write with safe details", async () => {
    const rows = await waitFor(
      async () => {
        const found = await gw.handle.db.prisma.auditEntry.findMany({
          where: { action: { startsWith: "spend_group:" } },
        });
        return found.some((r) => r.action === "spend_group:delete" && r.result === "forbidden")
          ? found
          : undefined;
      },
      { timeoutMs: 10_000, what: "spend-group audit rows" },
    );
    const summary = rows.map((r) => `${r.action}:${r.result}`);
    for (const expected of [
      "spend_group:create:success",
      "spend_group:create:error",
      "spend_group:create:forbidden",
      "spend_group:update:success",
      "spend_group:delete:success",
    ])
      assert.ok(summary.includes(expected), `${expected} in ${summary.join(", ")}`);
    const created = rows.find((r) => r.action === "spend_group:create" && r.result === "success")!;
    assert.equal(typeof (created.details as { spendGroupId?: string }).spendGroupId, "string");
  });
});
