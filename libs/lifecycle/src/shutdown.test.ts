import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createShutdown } from "./shutdown.js";

const silent = { info() {}, warn() {}, error() {} };

describe("createShutdown", () => {
  it("runs steps in registration order, once, even when one fails", async () => {
    const order: string[] = [];
    const shutdown = createShutdown({ logger: silent, timeoutMs: 1000, exit: () => {} });
    shutdown.register("http", async () => {
      order.push("http");
    });
    shutdown.register("broken", () => {
      order.push("broken");
      throw new Error("boom");
    });
    shutdown.register("bus", () => {
      order.push("bus");
    });
    await Promise.all([shutdown.run("test"), shutdown.run("again")]);
    assert.deepEqual(order, ["http", "broken", "bus"]);
    assert.equal(shutdown.stopping, true);
    process.exitCode = 0;
  });

  it("stops waiting at the deadline", async () => {
    const shutdown = createShutdown({ logger: silent, timeoutMs: 50, exit: () => {} });
    shutdown.register("hangs", () => new Promise<void>(() => {}));
    const started = Date.now();
    await shutdown.run("test");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 45 && elapsed < 1000, `elapsed ${elapsed}`);
    assert.equal(process.exitCode, 1);
    process.exitCode = 0;
  });
});
