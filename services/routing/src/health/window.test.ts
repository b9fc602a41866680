import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bucketCount,
  bucketStarts,
  bucketTtlMs,
  bucketWeight,
  bucketWeights,
  circuitState,
  currentBucketStart,
  flatWindowStats,
  windowStats,
} from "./window.js";

const settings = { windowMs: 60_000, bucketMs: 10_000, halfLifeMs: 30_000, minCalls: 5 };

describe("health window", () => {
  it("derives epoch-aligned bucket starts, newest first", () => {
    assert.deepEqual(bucketStarts(125_000, settings), [120_000, 110_000, 100_000, 90_000, 80_000, 70_000]);
    assert.deepEqual(bucketStarts(120_000, settings)[0], 120_000);
    // A window that is not a multiple of the bucket gets the partial bucket too.
    assert.equal(bucketStarts(0, { windowMs: 25_000, bucketMs: 10_000 }).length, 3);
    assert.equal(bucketTtlMs(settings), 70_000);
    // The parts the store computes once per call agree with bucketStarts.
    assert.equal(currentBucketStart(125_000, settings), 120_000);
    assert.equal(bucketCount(settings), 6);
    assert.equal(bucketCount({ windowMs: 25_000, bucketMs: 10_000 }), 3);
  });

  it("halves a bucket's weight every half-life", () => {
    assert.equal(bucketWeight(0, settings), 1);
    assert.equal(bucketWeight(3, settings), 0.5);
    assert.equal(bucketWeight(6, settings), 0.25);
    assert.deepEqual(
      bucketWeights(4, settings),
      [0, 1, 2, 3].map((index) => bucketWeight(index, settings)),
    );
  });

  it("computes decayed rate, calls and latency", () => {
    const stats = windowStats(
      [
        { ok: 3, err: 1, lat: 300 },
        { ok: 0, err: 0, lat: 0 },
        { ok: 0, err: 0, lat: 0 },
        { ok: 2, err: 2, lat: 1_000 },
      ],
      settings,
    );
    // The last bucket weighs 0.5: ok 3 + 1, err 1 + 1, latency (300 + 500) / 4.
    assert.deepEqual(stats, { errorRate: 2 / 6, calls: 6, latencyMs: 200 });
    assert.deepEqual(windowStats([{ ok: 0, err: 4, lat: 0 }], settings), {
      errorRate: null,
      calls: 4,
      latencyMs: null,
    });
    assert.deepEqual(windowStats([], { ...settings, minCalls: 0 }), {
      errorRate: null,
      calls: 0,
      latencyMs: null,
    });
  });

  it("computes the same stats from counters laid out flat (ok, err, lat per bucket)", () => {
    const odd = { windowMs: 60_000, bucketMs: 10_000, halfLifeMs: 7_000, minCalls: 2 };
    const buckets = [
      { ok: 3, err: 1, lat: 317 },
      { ok: 0, err: 5, lat: 0 },
      { ok: 7, err: 0, lat: 1_234 },
      { ok: 1, err: 1, lat: 99 },
    ];
    // Other values around the window, as in one get for several models.
    const values = [9, 9, ...buckets.flatMap((b) => [b.ok, b.err, b.lat]), 9];
    assert.deepEqual(
      flatWindowStats(values, 2, bucketWeights(buckets.length, odd), odd.minCalls),
      windowStats(buckets, odd),
    );
    // Missing values read as 0.
    assert.deepEqual(
      flatWindowStats([], 0, bucketWeights(3, odd), 0),
      windowStats([], { ...odd, minCalls: 0 }),
    );
  });

  it("reads the circuit from openUntil", () => {
    assert.equal(circuitState(0, 1_000, 60_000), "closed");
    assert.equal(circuitState(2_000, 1_999, 60_000), "open");
    assert.equal(circuitState(2_000, 2_000, 60_000), "half_open");
    assert.equal(circuitState(2_000, 61_999, 60_000), "half_open");
    assert.equal(circuitState(2_000, 62_000, 60_000), "closed");
  });
});
