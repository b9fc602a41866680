import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { currentWindow } from "./windows.js";

const at = (iso: string) => Date.parse(iso);

describe("currentWindow", () => {
  it("uses UTC calendar periods", () => {
    assert.equal(
      currentWindow("period", "daily", at("2026-11-22T23:59:59Z")).endsAt,
      at("2026-11-23T00:00:00Z"),
    );
    assert.equal(
      currentWindow("period", "hourly", at("2026-11-22T10:30:00Z")).endsAt,
      at("2026-11-22T11:00:00Z"),
    );
    assert.equal(
      currentWindow("period", "monthly", at("2026-12-31T12:00:00Z")).endsAt,
      at("2027-01-01T00:00:00Z"),
    );
    assert.equal(
      currentWindow("period", "yearly", at("2026-03-01T00:00:00Z")).endsAt,
      at("2027-01-01T00:00:00Z"),
    );
  });

  it("starts weeks on Monday", () => {
    // 2026-11-22 is a Sunday: its week began Monday 2026-11-16.
    const sunday = currentWindow("period", "weekly", at("2026-11-22T08:00:00Z"));
    assert.equal(sunday.id, "p2026-11-16T00:00:00.000Z");
    assert.equal(sunday.endsAt, at("2026-11-23T00:00:00Z"));
    assert.equal(
      currentWindow("period", "weekly", at("2026-11-23T00:00:00Z")).id,
      "p2026-11-23T00:00:00.000Z",
    );
  });

  it("changes id exactly at the boundary", () => {
    const before = currentWindow("period", "daily", at("2026-11-22T23:59:59.999Z"));
    const after = currentWindow("period", "daily", at("2026-11-23T00:00:00.000Z"));
    assert.notEqual(before.id, after.id);
  });

  it("aligns rolling stopgap windows to their size", () => {
    const w = currentWindow("rolling", "minute", 125_000);
    assert.equal(w.endsAt, 180_000);
  });
});
