import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TtlCache } from "./ttl-cache.js";

describe("TtlCache", () => {
  it("shares one load between concurrent misses and serves hits until the TTL", async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<number>({ ttlMs: 100, maxEntries: 10, now: () => now });
    const load = async () => ++loads;
    const values = await Promise.all([cache.get("a", load), cache.get("a", load), cache.get("a", load)]);
    assert.deepEqual(values, [1, 1, 1]);
    now = 99;
    assert.equal(await cache.get("a", load), 1);
    now = 100;
    assert.equal(await cache.get("a", load), 2);
  });

  it("evicts the oldest entry when full and forgets failed loads", async () => {
    const cache = new TtlCache<string>({ ttlMs: 1000, maxEntries: 2 });
    await cache.get("a", async () => "a1");
    await cache.get("b", async () => "b1");
    await cache.get("c", async () => "c1");
    assert.equal(await cache.get("a", async () => "a2"), "a2");
    await assert.rejects(cache.get("x", async () => Promise.reject(new Error("db down"))));
    assert.equal(await cache.get("x", async () => "x1"), "x1");
  });
});
