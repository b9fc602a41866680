import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AdminError } from "../errors.js";
import { DEFAULT_SPAN_MS, parseUsageQuery } from "./query.js";

const NOW = Date.parse("2026-03-10T12:34:56.789Z");

describe("parseUsageQuery", () => {
  it("defaults to the 30 days before now, 100 records from the first", () => {
    const query = parseUsageQuery({}, NOW);
    assert.equal(query.to.getTime(), NOW);
    assert.equal(query.from.getTime(), NOW - DEFAULT_SPAN_MS);
    assert.equal(query.limit, 100);
    assert.equal(query.offset, 0);
    // Only `from`: 30 days before now does not apply, the range ends now.
    assert.equal(parseUsageQuery({ from: "2026-03-01" }, NOW).to.getTime(), NOW);
    assert.equal(parseUsageQuery({ to: "2026-03-01" }, NOW).from.toISOString(), "2026-01-31T00:00:00.000Z");
  });

  it("reads a date alone as the whole UTC day and a zoneless date-time as UTC", () => {
    const day = parseUsageQuery({ from: "2026-03-01", to: "2026-03-01" }, NOW);
    assert.equal(day.from.toISOString(), "2026-03-01T00:00:00.000Z");
    assert.equal(day.to.toISOString(), "2026-03-02T00:00:00.000Z");
    const zoned = parseUsageQuery({ from: "2026-03-01T10:00:00+02:00", to: "2026-03-01T10:00" }, NOW);
    assert.equal(zoned.from.toISOString(), "2026-03-01T08:00:00.000Z");
    assert.equal(zoned.to.toISOString(), "2026-03-01T10:00:00.000Z");
    const leap = parseUsageQuery({ from: "2028-02-29", to: "2028-02-29" }, NOW);
    assert.equal(leap.to.toISOString(), "2028-03-01T00:00:00.000Z");
  });

  it("splits id lists and keeps every filter", () => {
    const query = parseUsageQuery(
      {
        projectIds: "p1, p2,,p1",
        modelIds: "m1",
        callType: "routing",
        outcome: "error",
        limit: "5",
        offset: "10",
      },
      NOW,
    );
    assert.deepEqual(query.projectIds, ["p1", "p2"]);
    assert.deepEqual(query.modelIds, ["m1"]);
    assert.equal(query.callType, "routing");
    assert.equal(query.outcome, "error");
    assert.equal(query.limit, 5);
    assert.equal(query.offset, 10);
  });

  it("refuses what it cannot read, naming the parameter", () => {
    for (const [raw, field] of [
      [{ from: "2026-02-30" }, "from"],
      [{ to: "2027-02-29" }, "to"],
      [{ from: "03/01/2026" }, "from"],
      [{ from: "2026-03-02", to: "2026-03-01T00:00:00Z" }, "from"],
      [{ from: "2010-01-01", to: "2026-01-01" }, "from"],
      [{ limit: "1001" }, "limit"],
      [{ offset: "-3" }, "offset"],
      [{ outcome: "ok" }, "outcome"],
      [{ model: ["a", "b"] }, "model"],
    ] as const) {
      assert.throws(
        () => parseUsageQuery(raw, NOW),
        (error: unknown) =>
          error instanceof AdminError && error.status === 400 && error.message.startsWith(field),
        JSON.stringify(raw),
      );
    }
  });
});
