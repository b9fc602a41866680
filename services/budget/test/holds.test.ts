import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CounterStoreUnavailableError } from "@gw/counters";
import { createLogger } from "@gw/logger";
import { RpcError, status } from "@gw/rpc";
import { startExpirySweeper } from "../src/expiry-sweeper.js";
import {
  addProject,
  type BudgetHarness,
  budget,
  clientOf,
  eventsNamed,
  reserveRequest,
  startHarness,
  storeKinds,
} from "./harness.js";

const TTL_MS = 60_000;

for (const kind of storeKinds()) {
  describe(`budget reservations expire and fail closed (${kind})`, () => {
    let h: BudgetHarness;
    before(async () => {
      h = await startHarness(kind, { reservationTtlMs: TTL_MS });
    });
    after(() => h.close());

    const sweeper = () =>
      startExpirySweeper(
        {
          configStore: null as never,
          counters: h.counters,
          events: { publish() {} },
          logger: createLogger({ name: "sweeper-test", level: "silent" }),
          now: () => h.clock.now,
        },
        3_600_000,
      );

    it("a reservation nobody settles is given back once its TTL has passed, and a late settle still counts", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 2 })] });
      const crashed = await h.handlers.reserve(reserveRequest({ projectId: project.id }));
      assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, true);
      assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, false);
      assert.equal(crashed.expiresAtMs, h.clock.now + TTL_MS);
      const sweep = sweeper();
      try {
        h.clock.now += TTL_MS - 1;
        assert.equal(await sweep.sweep(), 0);
        h.clock.now += 1;
        assert.ok((await sweep.sweep()) >= 1);
        assert.equal(await sweep.sweep(), 0);
        // The crashed call's worst case is back: one more call fits.
        assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, true);
        // The call was alive after all and settles late: its actual usage is counted, not lost.
        const late = await h.handlers.settle({
          reservationId: crashed.reservationId,
          actual: { calls: 1, inputTokens: 0, outputTokens: 0, costMicros: 0 },
        });
        assert.equal(late.settled, true);
        assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, false);
      } finally {
        sweep.stop();
      }
    });

    it("release gives the worst case back; a second release or settle is a no-op", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 1 })] });
      const held = await h.handlers.reserve(reserveRequest({ projectId: project.id }));
      assert.equal((await h.handlers.release({ reservationId: held.reservationId })).released, true);
      assert.equal((await h.handlers.release({ reservationId: held.reservationId })).released, false);
      assert.equal(
        (
          await h.handlers.settle({
            reservationId: held.reservationId,
            actual: { calls: 1, inputTokens: 1, outputTokens: 1, costMicros: 1 },
          })
        ).settled,
        false,
      );
      assert.equal((await h.handlers.reserve(reserveRequest({ projectId: project.id }))).admitted, true);
    });

    it("counters that cannot answer refuse with UNAVAILABLE and emit budget.unavailable", async () => {
      const project = addProject(h.config, { budgets: [budget({ limit: 10 })] });
      const events: { event: string }[] = [];
      const broken = clientOf({
        configStore: {
          projectById: async () => project,
          tokenById: async () => null,
          modelById: async () => null,
          spendGroups: async () => [],
        } as never,
        counters: {
          ...h.counters,
          reserveHold: () =>
            Promise.reject(
              new CounterStoreUnavailableError("counter store unavailable (redis 127.0.0.1:1): timeout"),
            ),
        } as never,
        events: { publish: (event) => events.push(event) },
        logger: createLogger({ name: "fail-closed-test", level: "silent" }),
      });
      await assert.rejects(
        () => broken.reserve(reserveRequest({ projectId: project.id })),
        (error: unknown) => error instanceof RpcError && error.code === status.UNAVAILABLE,
      );
      assert.deepEqual(
        (await eventsNamed(events as never, "budget.unavailable")).map((e) => e.event),
        ["budget.unavailable"],
      );
    });
  });
}
