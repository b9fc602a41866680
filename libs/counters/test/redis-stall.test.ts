import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { createRedisCounterStore } from "../src/index.js";
import { withDeadline } from "../src/redis-connection.js";

describe("command deadline and event-loop stalls", () => {
  it("refuses a command whose promise never settles, one loop turn after the deadline", async () => {
    const started = Date.now();
    await assert.rejects(
      withDeadline(new Promise(() => {}), 30, () => new Error("late")),
      /late/,
    );
    assert.ok(Date.now() - started >= 30);
  });

  it("passes on a value that settled before the deadline was looked at", async () => {
    assert.equal(await withDeadline(Promise.resolve(7), 10, () => new Error("late")), 7);
  });

  it("does not refuse a reply Redis sent in time while this process was blocked past the deadline", {
    skip: process.env.REDIS_URL ? false : "needs REDIS_URL",
  }, async () => {
    const keyPrefix = `stall-${randomUUID().slice(0, 8)}:`;
    const store = createRedisCounterStore({ url: process.env.REDIS_URL!, keyPrefix, commandTimeoutMs: 50 });
    try {
      await store.ping();
      const pending = store.reserve([{ key: "k", amount: 1, limit: 10, ttlMs: 10_000 }]);
      // Let the command reach the socket (its deadline timer is running), then block the event loop
      // well past the deadline: the reply arrives meanwhile and waits in the socket.
      await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 300;
      while (Date.now() < until) {}
      assert.deepEqual(await pending, { ok: true, values: [1] });
      // The hash operations share the same deadline.
      const once = store.hashAddOnce({ key: "seen", field: "r", ttlMs: 10_000 }, [
        { key: "h", field: "f", amount: 1, ttlMs: 10_000 },
      ]);
      await new Promise((resolve) => setImmediate(resolve));
      const until2 = Date.now() + 300;
      while (Date.now() < until2) {}
      assert.equal(await once, true);
      // Cleanup with a patient store: this one's 50 ms deadline is meant for the stall above only.
      const patient = createRedisCounterStore({
        url: process.env.REDIS_URL!,
        keyPrefix,
        commandTimeoutMs: 2000,
      });
      try {
        assert.deepEqual(await patient.hashGetAll("h"), { f: 1 });
        await patient.delete(["k", "seen", "h"]);
      } finally {
        await patient.close();
      }
    } finally {
      await store.close();
    }
  });
});
