import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkHealthSettings, DEFAULT_HEALTH_SETTINGS, mergeHealthSettings } from "./settings.js";
import type { HealthSettings } from "./types.js";

describe("health settings", () => {
  it("has the documented defaults, frozen", () => {
    assert.deepEqual(DEFAULT_HEALTH_SETTINGS, {
      windowMs: 60_000,
      bucketMs: 10_000,
      halfLifeMs: 30_000,
      minCalls: 5,
      errorRateThreshold: 0.5,
      openMs: 30_000,
      defaultCooldownMs: 30_000,
    });
    assert.ok(Object.isFrozen(DEFAULT_HEALTH_SETTINGS));
    assert.deepEqual(mergeHealthSettings(), DEFAULT_HEALTH_SETTINGS);
    assert.deepEqual(mergeHealthSettings(null), DEFAULT_HEALTH_SETTINGS);
  });

  it("applies valid overrides and returns a fresh object", () => {
    const merged = mergeHealthSettings({
      windowMs: 120_000,
      bucketMs: 15_000,
      minCalls: 0,
      errorRateThreshold: 1,
    });
    assert.deepEqual(merged, {
      ...DEFAULT_HEALTH_SETTINGS,
      windowMs: 120_000,
      bucketMs: 15_000,
      minCalls: 0,
      errorRateThreshold: 1,
    });
    merged.openMs = 1;
    assert.equal(DEFAULT_HEALTH_SETTINGS.openMs, 30_000);
  });

  it("ignores overrides of the wrong type or out of range, and unknown fields", () => {
    const overrides = {
      windowMs: "60000",
      halfLifeMs: 0,
      minCalls: -1,
      errorRateThreshold: 1.5,
      openMs: 1.5,
      defaultCooldownMs: Number.POSITIVE_INFINITY,
      bogus: 3,
    } as unknown as Partial<HealthSettings>;
    const { settings, ignored } = checkHealthSettings(overrides);
    assert.deepEqual(settings, DEFAULT_HEALTH_SETTINGS);
    assert.deepEqual(ignored.sort(), [
      "defaultCooldownMs",
      "errorRateThreshold",
      "halfLifeMs",
      "minCalls",
      "openMs",
      "windowMs",
    ]);
    assert.deepEqual(checkHealthSettings({ openMs: 86_400_001 }).ignored, ["openMs"]);
    assert.deepEqual(checkHealthSettings({ errorRateThreshold: 0 }).ignored, ["errorRateThreshold"]);
  });

  it("falls back to the base window when bucket and window do not fit together", () => {
    // A bucket longer than the window.
    let checked = checkHealthSettings({ windowMs: 5_000 });
    assert.equal(checked.settings.windowMs, 60_000);
    assert.equal(checked.settings.bucketMs, 10_000);
    assert.deepEqual(checked.ignored, ["windowMs"]);
    // Too many buckets to read on every Route call.
    checked = checkHealthSettings({ windowMs: 3_600_000, bucketMs: 1_000 });
    assert.equal(checked.settings.windowMs, 60_000);
    assert.equal(checked.settings.bucketMs, 10_000);
    assert.deepEqual(checked.ignored, ["windowMs", "bucketMs"]);
    // 60 buckets is still fine.
    assert.equal(mergeHealthSettings({ windowMs: 60_000, bucketMs: 1_000 }).bucketMs, 1_000);
  });

  it("merges over another base", () => {
    const base = { ...DEFAULT_HEALTH_SETTINGS, openMs: 5_000 };
    assert.equal(mergeHealthSettings({ minCalls: 2 }, base).openMs, 5_000);
    assert.equal(mergeHealthSettings({ openMs: -1 }, base).openMs, 5_000);
  });
});
