import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { histogramPercentile, latencyBucket } from "./latency.js";

describe("latencyBucket", () => {
  it("is exact below 100 ms and clamps negatives to 0", () => {
    for (let ms = 0; ms < 100; ms++) assert.equal(latencyBucket(ms), ms);
    assert.equal(latencyBucket(-5), 0);
    assert.equal(latencyBucket(42.9), 42);
  });

  it("rounds down to a step of leading digit x 10^(digits - 3)", () => {
    const cases: [number, number][] = [
      [100, 100],
      [199, 199],
      [201, 200],
      [299, 298],
      [305, 303],
      [999, 999],
      [1000, 1000],
      [1999, 1990],
      [2039, 2020],
      [9999, 9990],
      [12_345, 12_300],
      [98_765, 98_100],
    ];
    for (const [ms, bucket] of cases) assert.equal(latencyBucket(ms), bucket, `bucket of ${ms}`);
  });

  it("stays within 1 % below the value with ~280 buckets per decade", () => {
    const buckets = new Set<number>();
    for (let ms = 0; ms < 1_000_000; ms++) {
      const bucket = latencyBucket(ms);
      assert.ok(bucket <= ms && ms - bucket <= ms * 0.01, `bucket ${bucket} of ${ms}`);
      if (ms >= 1000 && ms < 10_000) buckets.add(bucket);
    }
    assert.ok(buckets.size < 300, `${buckets.size} buckets in 1000..9999`);
  });

  it("reads the nearest-rank percentile of a histogram", () => {
    assert.equal(histogramPercentile({ "10": 94, "250": 5, "1990": 1 }, 0.95), 250);
    assert.equal(histogramPercentile({}, 0.95), null);
  });
});
