import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  addProject,
  type BudgetHarness,
  budget,
  eventsNamed,
  ONE_CALL,
  reserveRequest,
  startHarness,
  storeKinds,
} from "./harness.js";

for (const kind of storeKinds()) {
  describe(`budget windows and events (${kind})`, () => {
    let h: BudgetHarness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    const reserve = (projectId: string) => h.handlers.reserve(reserveRequest({ projectId }));
    const eventsOf = (projectId: string) => h.events.filter((e) => e.projectId === projectId);

    it("a rolling window frees capacity as time passes, never before the window's length", async () => {
      const project = addProject(h.config, {
        budgets: [budget({ limit: 3, windowType: "rolling", windowSize: "minute" } as never)],
      });
      h.clock.now = Date.parse("2026-11-24T11:00:00.000Z");
      for (let i = 0; i < 3; i++) assert.equal((await reserve(project.id)).admitted, true);
      assert.equal((await reserve(project.id)).admitted, false);
      h.clock.now += 30_000;
      assert.equal((await reserve(project.id)).admitted, false);
      // One full minute later the three calls still count (buckets of 1 s: never early)...
      h.clock.now = Date.parse("2026-11-24T11:01:00.000Z");
      assert.equal((await reserve(project.id)).admitted, false);
      // ...and at most one bucket later they have left the window.
      h.clock.now = Date.parse("2026-11-24T11:01:01.000Z");
      assert.equal((await reserve(project.id)).admitted, true);
    });

    it("a rolling window slides: calls leave it one by one", async () => {
      const project = addProject(h.config, {
        budgets: [budget({ limit: 2, windowType: "rolling", windowSize: "second" } as never)],
      });
      h.clock.now = Date.parse("2026-11-24T12:00:00.000Z");
      assert.equal((await reserve(project.id)).admitted, true);
      h.clock.now += 500;
      assert.equal((await reserve(project.id)).admitted, true);
      assert.equal((await reserve(project.id)).admitted, false);
      // 1.1 s after the first call: it left (100 ms buckets), the second has not.
      h.clock.now += 600;
      assert.equal((await reserve(project.id)).admitted, true);
      assert.equal((await reserve(project.id)).admitted, false);
    });

    it("a period window resets exactly at the UTC boundary, with budget.exhausted once and budget.reset", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 2, windowSize: "daily" })] });
      h.clock.now = Date.parse("2026-11-24T23:59:59.000Z");
      assert.equal((await reserve(project.id)).admitted, true);
      assert.equal((await reserve(project.id)).admitted, true);
      for (let i = 0; i < 5; i++) assert.equal((await reserve(project.id)).admitted, false);
      const exhausted = await eventsNamed(h.events, "budget.exhausted", { projectId: project.id });
      h.clock.now = Date.parse("2026-11-24T23:59:59.999Z");
      assert.equal((await reserve(project.id)).admitted, false);
      h.clock.now = Date.parse("2026-11-25T00:00:00.000Z");
      assert.equal((await reserve(project.id)).admitted, true);
      const [reset] = await eventsNamed(h.events, "budget.reset", { projectId: project.id });
      assert.equal(exhausted.length, 1);
      assert.ok(reset, "budget.reset published");
      assert.equal(reset.severity, "info");
      assert.deepEqual(reset.details, {
        level: "project",
        name: project.slug,
        scopeId: project.id,
        metric: "calls",
        window: "daily",
        limit: 2,
        current: 1,
      });
      const [exhaustedEvent] = eventsOf(project.id).filter((e) => e.event === "budget.exhausted");
      assert.equal(exhaustedEvent!.severity, "critical");
      assert.equal(exhaustedEvent!.details.current, 2);
    });

    it("budget.threshold at warnAt percent of settled usage, budget.exhausted at the limit, each once per window", async () => {
      const project = addProject(h.config, {
        budgets: [budget({ metric: "cost", limit: 0.001, warnAt: 50, windowSize: "hourly" })],
      });
      h.clock.now = Date.parse("2026-11-24T14:00:00.000Z");
      const worst = { ...ONE_CALL, costMicros: 300 };
      const call = async (actualMicros: number) => {
        const reserved = await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst));
        if (!reserved.admitted) return false;
        await h.handlers.settle({
          reservationId: reserved.reservationId,
          actual: { ...worst, costMicros: actualMicros },
        });
        return true;
      };
      assert.equal(await call(200), true); // 200 of 1000
      assert.equal(await call(200), true); // 400
      assert.equal(eventsOf(project.id).length, 0);
      assert.equal(await call(200), true); // 600: over 50%
      const [threshold] = await eventsNamed(h.events, "budget.threshold", { projectId: project.id });
      assert.ok(threshold, "budget.threshold published");
      assert.equal(threshold.severity, "warning");
      assert.equal(threshold.details.current, 0.0006);
      assert.equal(threshold.details.warnAt, 50);
      assert.equal(await call(100), true); // 700: no second threshold
      assert.equal(await call(300), true); // 1000: the limit
      const exhausted = await eventsNamed(h.events, "budget.exhausted", { projectId: project.id });
      assert.equal(exhausted.length, 1);
      assert.equal(exhausted[0]!.details.current, 0.001);
      assert.equal(eventsOf(project.id).filter((e) => e.event === "budget.threshold").length, 1);
    });
  });
}
