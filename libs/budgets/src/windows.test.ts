import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { periodWindow, previousPeriodWindow, ROLLING_LENGTH_MS, slidingWindowOf } from "./windows.js";

const at = (iso: string) => Date.parse(iso);

describe("periodWindow", () => {
  it("uses UTC calendar periods", () => {
    assert.equal(periodWindow("daily", at("2026-11-22T23:59:59Z")).endsAt, at("2026-11-23T00:00:00Z"));
    assert.equal(periodWindow("hourly", at("2026-11-22T10:30:00Z")).endsAt, at("2026-11-22T11:00:00Z"));
    assert.equal(periodWindow("monthly", at("2026-12-31T12:00:00Z")).endsAt, at("2027-01-01T00:00:00Z"));
    assert.equal(periodWindow("monthly", at("2028-02-29T12:00:00Z")).startsAt, at("2028-02-01T00:00:00Z"));
    assert.equal(periodWindow("yearly", at("2026-03-01T00:00:00Z")).endsAt, at("2027-01-01T00:00:00Z"));
  });

  it("starts weeks on Monday", () => {
    // 2026-11-22 is a Sunday: its week began Monday 2026-11-16.
    const sunday = periodWindow("weekly", at("2026-11-22T08:00:00Z"));
    assert.equal(sunday.id, "2026-11-16T00:00:00.000Z");
    assert.equal(sunday.endsAt, at("2026-11-23T00:00:00Z"));
    assert.equal(periodWindow("weekly", at("2026-11-23T00:00:00Z")).id, "2026-11-23T00:00:00.000Z");
  });

  it("changes id exactly at the boundary", () => {
    const before = periodWindow("daily", at("2026-11-22T23:59:59.999Z"));
    const after = periodWindow("daily", at("2026-11-23T00:00:00.000Z"));
    assert.notEqual(before.id, after.id);
    assert.equal(before.endsAt, after.startsAt);
  });

  it("gives the previous window across month and year ends", () => {
    assert.equal(previousPeriodWindow("monthly", at("2027-01-15T00:00:00Z")).id, "2026-12-01T00:00:00.000Z");
    assert.equal(previousPeriodWindow("weekly", at("2026-11-23T00:00:00Z")).id, "2026-11-16T00:00:00.000Z");
    assert.equal(previousPeriodWindow("hourly", at("2026-11-23T00:10:00Z")).id, "2026-11-22T23:00:00.000Z");
  });
});

describe("slidingWindowOf", () => {
  it("sums one bucket more than the window's length, so usage never leaves early", () => {
    for (const size of Object.keys(ROLLING_LENGTH_MS) as (keyof typeof ROLLING_LENGTH_MS)[]) {
      const { bucketMs, buckets } = slidingWindowOf(size);
      assert.ok(Number.isInteger(bucketMs) && bucketMs > 0, size);
      assert.equal(bucketMs * (buckets - 1), ROLLING_LENGTH_MS[size], size);
    }
    assert.deepEqual(slidingWindowOf("minute"), { bucketMs: 1000, buckets: 61 });
    assert.deepEqual(slidingWindowOf("second"), { bucketMs: 100, buckets: 11 });
  });
});
