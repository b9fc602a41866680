import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SpendGroupConfig } from "@gw/config-store";
import {
  addModel,
  addProject,
  addToken,
  type BudgetHarness,
  budget,
  reserveRequest,
  startHarness,
  storeKinds,
} from "./harness.js";

for (const kind of storeKinds()) {
  describe(`budget scopes (${kind})`, () => {
    let h: BudgetHarness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    const admittedOf = async (count: number, ids: Parameters<typeof reserveRequest>[0]) => {
      let admitted = 0;
      for (let i = 0; i < count; i++)
        if ((await h.handlers.reserve(reserveRequest(ids))).admitted) admitted++;
      return admitted;
    };

    it("extend: the token's limit binds in addition to the project's budget", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 5 })] });
      const tight = addToken(h.config, project.id, [{ ...budget({ limit: 2 }), mode: "extend" }]);
      const loose = addToken(h.config, project.id, [{ ...budget({ limit: 100 }), mode: "extend" }]);
      assert.equal(await admittedOf(4, { projectId: project.id, tokenId: tight.id }), 2);
      const refused = await h.handlers.reserve(reserveRequest({ projectId: project.id, tokenId: tight.id }));
      assert.equal(refused.blockedScope, `token:${tight.name}`);
      // The project budget still binds the loose token: 2 used, 3 left.
      assert.equal(await admittedOf(10, { projectId: project.id, tokenId: loose.id }), 3);
      const byProject = await h.handlers.reserve(
        reserveRequest({ projectId: project.id, tokenId: loose.id }),
      );
      assert.equal(byProject.blockedScope, `project:${project.slug}`);
    });

    it("override: the token's limit replaces the project budget of the same metric and window, which still counts", async () => {
      const project = addProject(h.config, {
        budgets: [budget({ limit: 3 }), budget({ limit: 100, windowSize: "daily" })],
      });
      const vip = addToken(h.config, project.id, [{ ...budget({ limit: 6 }), mode: "override" }]);
      const plain = addToken(h.config, project.id);
      assert.equal(await admittedOf(10, { projectId: project.id, tokenId: vip.id }), 6);
      const refused = await h.handlers.reserve(reserveRequest({ projectId: project.id, tokenId: vip.id }));
      assert.equal(refused.blockedScope, `token:${vip.name}`);
      // The project's monthly counter saw the 6 calls: other tokens are over its limit of 3.
      const other = await h.handlers.reserve(reserveRequest({ projectId: project.id, tokenId: plain.id }));
      assert.equal(other.admitted, false);
      assert.equal(other.blockedScope, `project:${project.slug}`);
      assert.equal(other.blockedWindow, "monthly");
    });

    it("override does not lift project budgets of another window", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 2, windowSize: "daily" })] });
      const vip = addToken(h.config, project.id, [{ ...budget({ limit: 10 }), mode: "override" }]);
      assert.equal(await admittedOf(5, { projectId: project.id, tokenId: vip.id }), 2);
    });

    it("a spend-group chain blocks when the parent is exhausted, for every child below it", async () => {
      const org: SpendGroupConfig = {
        id: `sg_org_${kind}`,
        name: "org",
        limits: [budget({ limit: 3 })],
        projectIds: [],
        tokenIds: [],
        parentGroupId: null,
      };
      const teamA = {
        ...org,
        id: `sg_a_${kind}`,
        name: "team-a",
        limits: [budget({ limit: 10 })],
        parentGroupId: org.id,
      };
      const teamB = { ...org, id: `sg_b_${kind}`, name: "team-b", limits: [], parentGroupId: org.id };
      h.config.groups.push(org, teamA, teamB);
      const a = addProject(h.config, { spendGroupId: teamA.id });
      const b = addProject(h.config);
      teamB.projectIds = [b.id];
      assert.equal(await admittedOf(2, { projectId: a.id }), 2);
      assert.equal(await admittedOf(1, { projectId: b.id }), 1);
      const refusedA = await h.handlers.reserve(reserveRequest({ projectId: a.id }));
      const refusedB = await h.handlers.reserve(reserveRequest({ projectId: b.id }));
      assert.equal(refusedA.blockedScope, "group:org");
      assert.equal(refusedB.blockedScope, "group:org");

      const usage = await h.handlers.groupUsage({ groupIds: [org.id, teamA.id] });
      assert.deepEqual(
        usage.groups.map((g) => [g.groupId, g.usage.map((u) => [u.metric, u.limit, u.current, u.remaining])]),
        [
          [org.id, [["calls", 3, 3, 0]]],
          [teamA.id, [["calls", 10, 2, 8]]],
        ],
      );
    });

    it("a group naming the token binds that token's calls in any project", async () => {
      const project = addProject(h.config);
      const token = addToken(h.config, project.id);
      h.config.groups.push({
        id: `sg_keys_${kind}`,
        name: "keys",
        limits: [budget({ limit: 1 })],
        projectIds: [],
        tokenIds: [token.id],
        parentGroupId: null,
      });
      assert.equal(await admittedOf(3, { projectId: project.id, tokenId: token.id }), 1);
      assert.equal(await admittedOf(3, { projectId: project.id }), 3);
    });

    it("a model over its own limit is refused with the model named, after the wider scopes admitted", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 100 })] });
      const model = addModel(h.config, {
        limits: [budget({ limit: 1, windowType: "rolling", windowSize: "hour" } as never)],
      });
      assert.equal(await admittedOf(1, { projectId: project.id, modelId: model.id }), 1);
      const refused = await h.handlers.reserve(reserveRequest({ projectId: project.id, modelId: model.id }));
      assert.equal(refused.blockedScope, `model:${model.id}`);
      assert.equal(refused.blockedWindow, "rolling hour");
    });
  });
}
