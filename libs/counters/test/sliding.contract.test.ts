import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CounterStore, SlidingWindow } from "../src/index.js";
import { type ContractFactory, forEachStore, unique as key } from "./contract-harness.js";

/** Aligned to the second: bucket i of a 1 s window starts at T0 + i * 1000. */
const T0 = 1_700_000_000_000;
/** Five 1 s buckets: usage added in bucket i counts until bucket i + 4 ends. */
const WINDOW: SlidingWindow = { bucketMs: 1000, buckets: 5 };
const at = (ms: number) => ({ nowMs: T0 + ms });

/** Sliding windows (hash of buckets), and `read`, on every store. Time moves through `nowMs` only. */
function slidingContract(name: string, factory: ContractFactory): void {
  describe(`CounterStore sliding windows: ${name}`, () => {
    let store: CounterStore;
    before(() => {
      store = factory().store;
    });
    after(() => store.close());

    const sliding = (k: string) => ({ key: k, sliding: WINDOW });

    it("sums amounts across buckets and drops each after `buckets` buckets", async () => {
      const s = key("s");
      assert.deepEqual(await store.add([{ ...sliding(s), amount: 1 }], at(0)), [1]);
      assert.deepEqual(await store.add([{ ...sliding(s), amount: 2 }], at(1000)), [3]);
      assert.deepEqual(await store.add([{ ...sliding(s), amount: 4 }], at(4999)), [7]);
      assert.deepEqual(await store.read([sliding(s)], at(4999)), [7]);
      // Bucket 0 leaves at 5000, bucket 1 at 6000, bucket 4 at 9000.
      assert.deepEqual(await store.read([sliding(s)], at(5000)), [6]);
      assert.deepEqual(await store.read([sliding(s)], at(6000)), [4]);
      assert.deepEqual(await store.read([sliding(s)], at(8999)), [4]);
      assert.deepEqual(await store.read([sliding(s)], at(9000)), [0]);
      assert.deepEqual(await store.add([{ ...sliding(s), amount: -1 }], at(9000)), [-1]);
    });

    it("refuses a reserve by the window sum and admits it again once old buckets leave", async () => {
      const [s, p] = [key("s"), key("p")];
      const entries = [
        { key: p, amount: 1, limit: 100 },
        { ...sliding(s), amount: 3, limit: 5 },
      ];
      assert.deepEqual(await store.reserve(entries, at(0)), { ok: true, values: [1, 3] });
      // All or nothing: the plain entry is not added either.
      assert.deepEqual(await store.reserve(entries, at(2000)), { ok: false, failedIndex: 1, values: [1, 3] });
      assert.deepEqual(await store.read([{ key: p }, sliding(s)], at(2000)), [1, 3]);
      assert.deepEqual(await store.reserve(entries, at(5000)), { ok: true, values: [2, 3] });
      // Repeated keys are checked against the running window sum.
      assert.deepEqual(
        await store.reserve(
          [
            { ...sliding(s), amount: 1, limit: 5 },
            { ...sliding(s), amount: 2, limit: 5 },
          ],
          at(5500),
        ),
        { ok: false, failedIndex: 1, values: [3, 3] },
      );
    });

    it("refuses amount 0 while the window is at its limit, and admits it once usage leaves", async () => {
      const s = key("s");
      await store.add([{ ...sliding(s), amount: 5 }], at(0));
      const check = [{ ...sliding(s), amount: 0, limit: 5 }];
      assert.deepEqual(await store.reserve(check, at(4000)), { ok: false, failedIndex: 0, values: [5] });
      assert.deepEqual(await store.reserve([{ ...sliding(s), amount: 0, limit: 6 }], at(4000)), {
        ok: true,
        values: [5],
      });
      assert.deepEqual(await store.reserve(check, at(5000)), { ok: true, values: [0] });
    });

    it("reads plain and sliding keys in one call; missing ones are 0", async () => {
      const [p, s, missing, missingSliding] = [key("p"), key("s"), key("m"), key("ms")];
      await store.add([{ key: p, amount: 7 }]);
      await store.add([{ ...sliding(s), amount: 3 }], at(0));
      assert.deepEqual(
        await store.read([{ key: p }, sliding(s), { key: missing }, sliding(missingSliding)], at(0)),
        [7, 3, 0, 0],
      );
      assert.deepEqual(await store.read([]), []);
      // Other windows over the same hash see other sums: only the buckets count.
      assert.deepEqual(
        await store.read([{ key: s, sliding: { bucketMs: 1000, buckets: 1 } }], at(1000)),
        [0],
      );
    });

    it("sets the TTL of a window key when asked, and keeps it otherwise", async () => {
      const [s, t] = [key("s"), key("t")];
      await store.reserve([{ ...sliding(s), amount: 1, limit: 5, ttlMs: 60_000 }], at(0));
      await store.add([{ ...sliding(t), amount: 1 }], at(0));
      await store.add([{ ...sliding(s), amount: 1 }], at(7000));
      const ttl = await store.ttlMs(s);
      assert.ok(ttl !== null && ttl > 0 && ttl <= 60_000, `ttl is ${ttl}`);
      assert.equal(await store.ttlMs(t), null);
      // A refused reserve sets no TTL.
      await store.reserve([{ ...sliding(t), amount: 5, limit: 5, ttlMs: 60_000 }], at(0));
      assert.equal(await store.ttlMs(t), null);
    });

    it("deletes stale buckets on each write (a reader with an older clock sees them gone)", async () => {
      const s = key("s");
      await store.add([{ ...sliding(s), amount: 1 }], at(0));
      assert.deepEqual(await store.read([sliding(s)], at(0)), [1]);
      await store.add([{ ...sliding(s), amount: 2 }], at(10_000));
      assert.deepEqual(await store.read([sliding(s)], at(0)), [2]);
    });

    it("refuses to mix plain and sliding operations on one key, changing nothing", async () => {
      const [p, s, text, other] = [key("p"), key("s"), key("text"), key("other")];
      await store.add([{ key: p, amount: 4 }]);
      await store.add([{ ...sliding(s), amount: 3 }], at(0));
      await store.setValue(text, "abc", 60_000);
      const attempts = [
        () =>
          store.reserve(
            [
              { key: other, amount: 1 },
              { ...sliding(p), amount: 1 },
            ],
            at(0),
          ),
        () =>
          store.add(
            [
              { key: other, amount: 1 },
              { key: s, amount: 1 },
            ],
            at(0),
          ),
        () => store.add([{ ...sliding(text), amount: 1 }], at(0)),
        () => store.read([sliding(p)], at(0)),
        () => store.read([{ key: s }], at(0)),
        () => store.get([s]),
        () => store.getValue(s),
      ];
      for (const attempt of attempts) await assert.rejects(attempt(), TypeError);
      assert.deepEqual(await store.read([{ key: p }, sliding(s), { key: other }], at(0)), [4, 3, 0]);
      assert.equal(await store.getValue(text), "abc");
    });

    it("refuses overflow of a window without changing anything", async () => {
      const [s, other] = [key("s"), key("other")];
      await store.add([{ ...sliding(s), amount: Number.MAX_SAFE_INTEGER }], at(0));
      await assert.rejects(
        store.add(
          [
            { key: other, amount: 1 },
            { ...sliding(s), amount: 1 },
          ],
          at(1000),
        ),
        RangeError,
      );
      assert.deepEqual(await store.read([{ key: other }, sliding(s)], at(1000)), [
        0,
        Number.MAX_SAFE_INTEGER,
      ]);
      // Once the big bucket left, the window takes amounts again.
      assert.deepEqual(await store.add([{ ...sliding(s), amount: 1 }], at(5000)), [1]);
    });

    it("rejects bad windows and clocks with a TypeError before touching the store", async () => {
      const s = key("s");
      for (const bad of [
        { bucketMs: 0, buckets: 5 },
        { bucketMs: 1000, buckets: 1.5 },
        { bucketMs: -1, buckets: 1 },
      ]) {
        await assert.rejects(store.add([{ key: s, amount: 1, sliding: bad }], at(0)), TypeError);
        await assert.rejects(store.read([{ key: s, sliding: bad }], at(0)), TypeError);
      }
      for (const nowMs of [-1, 1.5, Number.NaN]) {
        await assert.rejects(store.add([{ ...sliding(s), amount: 1 }], { nowMs }), TypeError);
      }
      const twoWindows = [
        { ...sliding(s), amount: 1 },
        { key: s, amount: 1, sliding: { bucketMs: 1000, buckets: 6 } },
      ];
      await assert.rejects(store.reserve(twoWindows, at(0)), TypeError);
      await assert.rejects(
        store.add(
          [
            { key: s, amount: 1 },
            { ...sliding(s), amount: 1 },
          ],
          at(0),
        ),
        TypeError,
      );
      assert.deepEqual(await store.read([sliding(s)], at(0)), [0]);
    });

    it("admits exactly the limit of a window under 200 concurrent reserves", async () => {
      const s = key("race");
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          store.reserve([{ ...sliding(s), amount: 1, limit: 50 }], at(index * 10)),
        ),
      );
      assert.equal(results.filter((result) => result.ok).length, 50);
      assert.deepEqual(await store.read([sliding(s)], at(1990)), [50]);
    });
  });
}

forEachStore(slidingContract);
