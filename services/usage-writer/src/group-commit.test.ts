import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GroupCommit } from "./group-commit.js";

describe("GroupCommit", () => {
  it("without linger, commits a lone row at once and groups rows that arrive during an insert", async () => {
    const inserts: number[][] = [];
    let release: () => void = () => {};
    const writer = new GroupCommit<number>({
      lingerMs: 0,
      insert: async (rows) => {
        inserts.push(rows);
        if (inserts.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    const first = writer.add(1);
    const later = [writer.add(2), writer.add(3), writer.add(4)];
    release();
    await Promise.all([first, ...later]);
    assert.deepEqual(inserts, [[1], [2, 3, 4]]);
  });

  it("lingers so rows arriving within lingerMs share one insert, and a full batch goes at once", async () => {
    const inserts: number[][] = [];
    const writer = new GroupCommit<number>({
      insert: async (rows) => void inserts.push(rows),
      lingerMs: 30,
      maxBatch: 3,
    });
    const first = writer.add(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(inserts.length, 0, "nothing inserted while lingering");
    await Promise.all([first, writer.add(2)]);
    assert.deepEqual(inserts, [[1, 2]]);
    // With a linger of a minute, only "a full batch goes at once" lets these resolve promptly.
    const patient = new GroupCommit<number>({
      insert: async (rows) => void inserts.push(rows),
      lingerMs: 60_000,
      maxBatch: 3,
    });
    const started = Date.now();
    await Promise.all([patient.add(3), patient.add(4), patient.add(5)]);
    assert.deepEqual(inserts.at(-1), [3, 4, 5]);
    assert.ok(Date.now() - started < 5_000, "a full batch does not wait for the linger");
  });

  it("caps batches at maxBatch", async () => {
    const inserts: number[][] = [];
    const writer = new GroupCommit<number>({
      insert: async (rows) => void inserts.push(rows),
      maxBatch: 2,
      lingerMs: 0,
    });
    await Promise.all([1, 2, 3, 4, 5].map((n) => writer.add(n)));
    assert.ok(inserts.every((rows) => rows.length <= 2));
    assert.deepEqual(inserts.flat().sort(), [1, 2, 3, 4, 5]);
  });

  it("fails only the bad row of a failed batch", async () => {
    let failures = 0;
    const stored: number[] = [];
    const writer = new GroupCommit<number>({
      lingerMs: 0,
      insert: async (rows) => {
        if (rows.includes(13)) throw new Error("row 13 is invalid");
        stored.push(...rows);
      },
      onBatchFailure: () => failures++,
    });
    // The first insert is in flight when the next three arrive, so those three form one batch.
    const first = writer.add(1);
    const results = await Promise.allSettled([first, writer.add(12), writer.add(13), writer.add(14)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "fulfilled", "rejected", "fulfilled"],
    );
    assert.deepEqual(
      stored.sort((a, b) => a - b),
      [1, 12, 14],
    );
    assert.equal(failures, 1);
  });
});
