import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { healthKeys, modelKeyCache } from "./keys.js";
import { bucketStarts } from "./window.js";

const settings = { windowMs: 30_000, bucketMs: 10_000 };

describe("modelKeyCache", () => {
  const keys = healthKeys("h:");

  it("hands out healthKeys' own keys: state keys, and ok, err, lat of each bucket newest first", () => {
    const cache = modelKeyCache(keys);
    const starts = bucketStarts(125_000, settings);
    const got = cache.get("a:b", starts[0]!, settings.bucketMs, starts.length);
    assert.equal(got.circuit, keys.circuit("a:b"));
    assert.equal(got.cooldown, keys.cooldown("a:b"));
    assert.equal(got.degraded, keys.degraded("a:b"));
    assert.deepEqual(
      got.window,
      starts.flatMap((start) => [
        keys.bucket("a:b", start, "ok"),
        keys.bucket("a:b", start, "err"),
        keys.bucket("a:b", start, "lat"),
      ]),
    );
    assert.deepEqual(got.window.slice(0, 3), ["h:a:b:120000:ok", "h:a:b:120000:err", "h:a:b:120000:lat"]);
  });

  it("reuses the keys within a bucket and moves the window with the clock", () => {
    const cache = modelKeyCache(keys);
    const first = cache.get("m", 120_000, 10_000, 3).window;
    assert.equal(cache.get("m", 120_000, 10_000, 3).window, first);
    const next = cache.get("m", 130_000, 10_000, 3).window;
    assert.notEqual(next, first);
    assert.equal(next[0], "h:m:130000:ok");
    assert.equal(next.at(-1), "h:m:110000:lat");
    // The window handed out before is left as it was.
    assert.equal(first[0], "h:m:120000:ok");
    // Other settings: other buckets.
    assert.equal(cache.get("m", 130_000, 5_000, 2).window.at(-1), "h:m:125000:lat");
    assert.equal(cache.get("m", 130_000, 5_000, 2).window.length, 6);
  });

  it("starts over past its size limit, still answering correctly", () => {
    const cache = modelKeyCache(keys, 2);
    const a = cache.get("a", 0, 10_000, 1);
    cache.get("b", 0, 10_000, 1);
    cache.get("c", 0, 10_000, 1);
    const again = cache.get("a", 0, 10_000, 1);
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
  });
});
