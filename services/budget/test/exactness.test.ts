import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  addModel,
  addProject,
  type BudgetHarness,
  budget,
  ONE_CALL,
  reserveRequest,
  startHarness,
  storeKinds,
} from "./harness.js";

for (const kind of storeKinds()) {
  describe(`budget exactness under concurrency (${kind})`, () => {
    let h: BudgetHarness;
    before(async () => {
      h = await startHarness(kind);
    });
    after(() => h.close());

    it("200 concurrent reserves against a calls budget of 50 admit exactly 50, 20 rounds in a row", async () => {
      const overshoots: number[] = [];
      for (let round = 0; round < 20; round++) {
        const project = addProject(h.config, { budgets: [budget({ limit: 50 })] });
        const answers = await Promise.all(
          Array.from({ length: 200 }, () => h.handlers.reserve(reserveRequest({ projectId: project.id }))),
        );
        const admitted = answers.filter((a) => a.admitted).length;
        overshoots.push(admitted - 50);
        for (const refused of answers.filter((a) => !a.admitted)) {
          assert.equal(refused.blockedScope, `project:${project.slug}`);
          assert.equal(refused.blockedMetric, "calls");
          assert.equal(refused.blockedWindow, "monthly");
          assert.equal(refused.blockedLimit, 50);
        }
      }
      assert.deepEqual(overshoots, Array(20).fill(0));
    });

    it("two replicas on the same counters stay exact", async () => {
      const other = await h.replica();
      const project = addProject(h.config, { budgets: [budget({ limit: 50 })] });
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? h.handlers : other).reserve(reserveRequest({ projectId: project.id })),
        ),
      );
      assert.equal(answers.filter((a) => a.admitted).length, 50);
    });

    it("settling to the actual usage frees what the worst case held", async () => {
      const project = addProject(h.config, { budgets: [budget({ metric: "total_tokens", limit: 1000 })] });
      const worst = { calls: 1, inputTokens: 100, outputTokens: 400, costMicros: 0 };
      const a = await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst));
      const b = await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst));
      assert.ok(a.admitted && b.admitted);
      // Full: a third worst case does not fit.
      assert.equal(
        (await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst))).admitted,
        false,
      );
      await h.handlers.settle({ reservationId: a.reservationId, actual: { ...worst, outputTokens: 50 } });
      // 150 + 500 held: 350 left, a worst case of 500 still refused, one of 300 admitted.
      assert.equal(
        (await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst))).admitted,
        false,
      );
      const small = { ...worst, outputTokens: 200 };
      assert.equal(
        (await h.handlers.reserve(reserveRequest({ projectId: project.id }, small))).admitted,
        true,
      );
    });

    it("a cost budget is never exceeded when actual usage stays within the worst case", async () => {
      const limitUsd = 0.05;
      const project = addProject(h.config, { budgets: [budget({ metric: "cost", limit: limitUsd })] });
      const worst = { calls: 1, inputTokens: 500, outputTokens: 1000, costMicros: 2_500 };
      let settledMicros = 0;
      let admittedCalls = 0;
      // 60 clients, each retrying until the budget refuses: many more calls than fit.
      await Promise.all(
        Array.from({ length: 60 }, async (_, client) => {
          for (let n = 0; ; n++) {
            const answer = await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst));
            if (!answer.admitted) return;
            admittedCalls++;
            // Actual cost: anything from 10% to 100% of the worst case.
            const actual = Math.round(worst.costMicros * (0.1 + (((client * 31 + n * 17) % 10) / 10) * 0.9));
            settledMicros += actual;
            await h.handlers.settle({
              reservationId: answer.reservationId,
              actual: { ...worst, costMicros: actual },
            });
          }
        }),
      );
      assert.ok(settledMicros <= limitUsd * 1_000_000, `settled ${settledMicros} micro-USD over the limit`);
      // And the budget was used, not refused early: at least as many calls as worst cases fit.
      assert.ok(admittedCalls >= 20, `only ${admittedCalls} calls admitted`);
    });

    it("a call that costs more than its worst case overshoots by at most that call's settle error", async () => {
      const project = addProject(h.config, { budgets: [budget({ metric: "cost", limit: 0.01 })] });
      const worst = { ...ONE_CALL, costMicros: 4_000 };
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          h.handlers.reserve(reserveRequest({ projectId: project.id }, worst)),
        ),
      );
      const admitted = answers.filter((a) => a.admitted);
      assert.equal(admitted.length, 2);
      // The provider counted more than our tokenizer: each settles 600 micro-USD above its worst case.
      for (const a of admitted)
        await h.handlers.settle({ reservationId: a.reservationId, actual: { ...worst, costMicros: 4_600 } });
      const [value] = await h.counters.read([
        { key: `budget:project:${project.id}:cost:period:monthly:2026-11-01T00:00:00.000Z` },
      ]);
      assert.equal(value, 9_200);
      assert.equal(
        (await h.handlers.reserve(reserveRequest({ projectId: project.id }, worst))).admitted,
        false,
      );
    });

    it("a retried reserve with the same id is held once", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 2 })] });
      const request = reserveRequest({ projectId: project.id });
      assert.equal((await h.handlers.reserve(request)).admitted, true);
      assert.equal((await h.handlers.reserve(request)).admitted, true);
      assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, true);
      assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, false);
    });

    it("holds nothing, and needs no settle, when no budget applies", async () => {
      const project = addProject(h.config);
      const answer = await h.handlers.reserve(reserveRequest({ projectId: project.id }));
      assert.equal(answer.admitted, true);
      assert.equal(answer.expiresAtMs, 0);
    });

    it("counts a tiered model's monthly volume with the actual tokens once settled", async () => {
      const project = addProject(h.config);
      const model = addModel(h.config, {
        pricingTiers: [{ fromTokens: 1_000_000, inputPrice: 0.0005, outputPrice: 0.001 }],
      });
      const answer = await h.handlers.reserve(reserveRequest({ projectId: project.id, modelId: model.id }));
      assert.ok(answer.expiresAtMs > 0);
      const key = `volume:model:${model.id}:2026-11-01T00:00:00.000Z`;
      assert.deepEqual(await h.counters.read([{ key }]), [30]);
      await h.handlers.settle({
        reservationId: answer.reservationId,
        actual: { ...ONE_CALL, outputTokens: 5 },
      });
      assert.deepEqual(await h.counters.read([{ key }]), [15]);
    });
  });
}
