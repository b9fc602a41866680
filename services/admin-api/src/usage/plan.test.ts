import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planSegments, type Segment } from "./plan.js";
import { bucketStarts, floorTo, timelineUnit } from "./timeline.js";

const at = (iso: string) => new Date(iso);
const show = (segments: Segment[]) =>
  segments.map((s) => `${s.source} ${s.from.toISOString()} ${s.to.toISOString()}`);

/** The plan's segments must tile [from, to) exactly: contiguous, in order, nothing twice. */
function assertTiles(segments: Segment[], from: Date, to: Date) {
  let cursor = from.getTime();
  for (const segment of segments) {
    assert.equal(segment.from.getTime(), cursor, `gap or overlap at ${segment.from.toISOString()}`);
    assert.ok(segment.to > segment.from, "empty segment");
    cursor = segment.to.getTime();
  }
  assert.equal(cursor, from < to ? to.getTime() : from.getTime());
}

describe("planSegments", () => {
  it("reads raw records, hourly and daily rollups for a range with partial edges", () => {
    const from = at("2026-03-01T10:15:30.250Z");
    const to = at("2026-03-05T07:40:00.000Z");
    const plan = planSegments(from, to, "day");
    assert.deepEqual(show(plan), [
      "raw 2026-03-01T10:15:30.250Z 2026-03-01T11:00:00.000Z",
      "hour 2026-03-01T11:00:00.000Z 2026-03-02T00:00:00.000Z",
      "day 2026-03-02T00:00:00.000Z 2026-03-05T00:00:00.000Z",
      "hour 2026-03-05T00:00:00.000Z 2026-03-05T07:00:00.000Z",
      "raw 2026-03-05T07:00:00.000Z 2026-03-05T07:40:00.000Z",
    ]);
    assertTiles(plan, from, to);
  });

  it("uses only daily rollups for whole days, and only hourly ones for whole hours", () => {
    assert.deepEqual(show(planSegments(at("2026-03-01T00:00:00Z"), at("2026-04-01T00:00:00Z"), "day")), [
      "day 2026-03-01T00:00:00.000Z 2026-04-01T00:00:00.000Z",
    ]);
    assert.deepEqual(show(planSegments(at("2026-03-01T05:00:00Z"), at("2026-03-01T09:00:00Z"), "day")), [
      "hour 2026-03-01T05:00:00.000Z 2026-03-01T09:00:00.000Z",
    ]);
  });

  it("never reads rollups coarser than the timeline bucket", () => {
    const from = at("2026-03-01T10:15:00Z");
    const to = at("2026-03-02T20:45:00Z");
    const hourly = planSegments(from, to, "hour");
    assert.deepEqual(show(hourly), [
      "raw 2026-03-01T10:15:00.000Z 2026-03-01T11:00:00.000Z",
      "hour 2026-03-01T11:00:00.000Z 2026-03-02T20:00:00.000Z",
      "raw 2026-03-02T20:00:00.000Z 2026-03-02T20:45:00.000Z",
    ]);
    assertTiles(hourly, from, to);
    const minutes = planSegments(at("2026-03-01T00:00:00Z"), at("2026-03-01T02:00:00Z"), "minute");
    assert.deepEqual(show(minutes), ["raw 2026-03-01T00:00:00.000Z 2026-03-01T02:00:00.000Z"]);
    // Days inside a week timeline align with the weeks' buckets.
    const weekly = planSegments(at("2026-01-01T00:00:00Z"), at("2026-06-01T00:00:00Z"), "week");
    assert.deepEqual(show(weekly), ["day 2026-01-01T00:00:00.000Z 2026-06-01T00:00:00.000Z"]);
  });

  it("reads raw records only for a range inside one hour, or across one hour edge", () => {
    assert.deepEqual(show(planSegments(at("2026-03-01T10:05:00Z"), at("2026-03-01T10:55:00Z"), "day")), [
      "raw 2026-03-01T10:05:00.000Z 2026-03-01T10:55:00.000Z",
    ]);
    assert.deepEqual(show(planSegments(at("2026-03-01T10:05:00Z"), at("2026-03-01T11:55:00Z"), "day")), [
      "raw 2026-03-01T10:05:00.000Z 2026-03-01T11:55:00.000Z",
    ]);
  });

  it("splits exactly at minute, hour and day edges (no empty segments)", () => {
    const from = at("2026-03-01T23:59:59.999Z");
    const to = at("2026-03-03T00:00:00.001Z");
    const plan = planSegments(from, to, "day");
    assert.deepEqual(show(plan), [
      "raw 2026-03-01T23:59:59.999Z 2026-03-02T00:00:00.000Z",
      "day 2026-03-02T00:00:00.000Z 2026-03-03T00:00:00.000Z",
      "raw 2026-03-03T00:00:00.000Z 2026-03-03T00:00:00.001Z",
    ]);
    assertTiles(plan, from, to);
  });

  it("crosses a leap day and the end of a leap year", () => {
    const from = at("2028-02-28T12:30:00Z");
    const to = at("2028-03-01T01:00:00Z");
    assert.deepEqual(show(planSegments(from, to, "hour")), [
      "raw 2028-02-28T12:30:00.000Z 2028-02-28T13:00:00.000Z",
      "hour 2028-02-28T13:00:00.000Z 2028-03-01T01:00:00.000Z",
    ]);
    const days = planSegments(at("2028-02-28T12:30:00Z"), at("2028-03-02T00:00:00Z"), "day");
    assert.deepEqual(show(days), [
      "raw 2028-02-28T12:30:00.000Z 2028-02-28T13:00:00.000Z",
      "hour 2028-02-28T13:00:00.000Z 2028-02-29T00:00:00.000Z",
      "day 2028-02-29T00:00:00.000Z 2028-03-02T00:00:00.000Z",
    ]);
    const newYear = planSegments(at("2028-12-31T22:00:00Z"), at("2029-01-01T02:00:00Z"), "day");
    assert.deepEqual(show(newYear), ["hour 2028-12-31T22:00:00.000Z 2029-01-01T02:00:00.000Z"]);
  });

  it("plans nothing for an empty range", () => {
    const instant = at("2026-03-01T10:00:00Z");
    assert.deepEqual(planSegments(instant, instant, "minute"), []);
    assert.deepEqual(planSegments(instant, instant, "day"), []);
  });

  it("tiles random ranges for every timeline unit", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 500; i++) {
      const from = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 400 * 86_400_000));
      const to = new Date(from.getTime() + Math.floor(random() ** 3 * 200 * 86_400_000));
      const unit = timelineUnit(from, to);
      const plan = planSegments(from, to, unit);
      assertTiles(plan, from, to);
      for (const segment of plan) {
        if (segment.source === "raw") continue;
        assert.ok(unit !== "minute", "a minute timeline reads raw records only");
        if (unit === "hour") assert.equal(segment.source, "hour");
        const size = segment.source === "hour" ? 3_600_000 : 86_400_000;
        assert.equal(segment.from.getTime() % size, 0);
        assert.equal(segment.to.getTime() % size, 0);
      }
    }
  });
});

describe("timeline buckets", () => {
  it("chooses the bucket size from the length of the range", () => {
    const from = at("2026-03-01T00:00:00Z");
    const after = (ms: number) => new Date(from.getTime() + ms);
    assert.equal(timelineUnit(from, after(2 * 3_600_000)), "minute");
    assert.equal(timelineUnit(from, after(2 * 3_600_000 + 1)), "hour");
    assert.equal(timelineUnit(from, after(2 * 86_400_000)), "hour");
    assert.equal(timelineUnit(from, after(2 * 86_400_000 + 1)), "day");
    assert.equal(timelineUnit(from, after(92 * 86_400_000)), "day");
    assert.equal(timelineUnit(from, after(92 * 86_400_000 + 1)), "week");
  });

  it("starts buckets on UTC boundaries, weeks on Monday, covering the range", () => {
    assert.equal(
      new Date(floorTo("week", Date.parse("2026-03-04T10:00:00Z"))).toISOString(),
      "2026-03-02T00:00:00.000Z",
    );
    assert.equal(
      new Date(floorTo("week", Date.parse("2026-03-02T00:00:00Z"))).toISOString(),
      "2026-03-02T00:00:00.000Z",
    );
    const starts = bucketStarts("hour", at("2026-03-01T10:30:00Z"), at("2026-03-01T13:00:00Z"));
    assert.deepEqual(
      starts.map((s) => new Date(s).toISOString()),
      ["2026-03-01T10:00:00.000Z", "2026-03-01T11:00:00.000Z", "2026-03-01T12:00:00.000Z"],
    );
    assert.deepEqual(bucketStarts("day", at("2026-03-01T10:30:00Z"), at("2026-03-01T10:30:00Z")), []);
  });
});
