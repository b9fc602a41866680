import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CounterStore, Hold, HoldEntry, SlidingWindow } from "../src/index.js";
import {
  type ContractFactory,
  type ContractHarness,
  forEachStore,
  TTL_MS,
  unique,
} from "./contract-harness.js";

/** Aligned to the second: bucket i of a 1 s window starts at T0 + i * 1000. */
const T0 = 1_700_000_000_000;
const WINDOW: SlidingWindow = { bucketMs: 1000, buckets: 5 };
const at = (ms: number) => ({ nowMs: T0 + ms });
/** Holds made at T0 expire at T0 + EXPIRES and are kept (real time, Redis TTL) for 10 minutes. */
const EXPIRES = 60_000;

function hold(id: string, entries: HoldEntry[], expiresAtMs = T0 + EXPIRES): Hold {
  return { id, entries, expiresAtMs, keepMs: 600_000 };
}

/** reserveHold, settleHold and expireHolds on every store; hold clocks move through nowMs only. */
function holdsContract(name: string, factory: ContractFactory): void {
  describe(`CounterStore holds: ${name}`, () => {
    let harness: ContractHarness;
    let store: CounterStore;
    before(() => {
      harness = factory();
      store = harness.store;
    });
    after(() => store.close());
    const [key, id] = [unique, unique];

    /** A store of its own, for tests that count everything expireHolds returns. */
    async function withOwnStore(test: (own: ContractHarness) => Promise<void>): Promise<void> {
      const own = factory();
      try {
        await test(own);
      } finally {
        await own.store.close();
      }
    }

    it("settles to a smaller actual amount: the values drop by the difference", async () => {
      const [a, s, h] = [key("a"), key("s"), id("h")];
      const entries: HoldEntry[] = [
        { key: a, amount: 100, limit: 1000, tag: "usd" },
        { key: s, amount: 1, limit: 10, tag: "requests", sliding: WINDOW },
      ];
      assert.deepEqual(await store.reserveHold(hold(h, entries), at(0)), {
        ok: true,
        replayed: false,
        values: [100, 1],
      });
      await store.add([{ key: a, amount: 5 }]);
      assert.deepEqual(await store.settleHold(h, { usd: 30, requests: 1, other: 9 }, at(1000)), {
        settled: true,
        values: [35, 1],
      });
      assert.deepEqual(await store.read([{ key: a }, { key: s, sliding: WINDOW }], at(1000)), [35, 1]);
      // Once: the second settle is unknown and changes nothing.
      assert.deepEqual(await store.settleHold(h, { usd: 1 }, at(1000)), { settled: false, values: [] });
      assert.deepEqual(await store.get([a]), [35]);
    });

    it("settles above the reserved amount without a limit check, and repeated keys in order", async () => {
      const [a, h] = [key("a"), id("h")];
      const entries: HoldEntry[] = [
        { key: a, amount: 10, limit: 20, tag: "usd" },
        { key: a, amount: 1, limit: 20, tag: "requests" },
      ];
      await store.reserveHold(hold(h, entries), at(0));
      assert.deepEqual(await store.settleHold(h, { usd: 50, requests: 1 }, at(0)), {
        settled: true,
        values: [51, 51],
      });
    });

    it("releases with an empty actual: everything is given back", async () => {
      const [a, s, h] = [key("a"), key("s"), id("h")];
      await store.add([{ key: a, amount: 3 }]);
      await store.reserveHold(
        hold(h, [
          { key: a, amount: 40, tag: "usd" },
          { key: s, amount: 2, tag: "requests", sliding: WINDOW },
        ]),
        at(0),
      );
      assert.deepEqual(await store.settleHold(h, {}, at(0)), { settled: true, values: [3, 0] });
      assert.deepEqual(await store.read([{ key: a }, { key: s, sliding: WINDOW }], at(0)), [3, 0]);
    });

    it("stores nothing for a refused hold: a retry with room is a new hold, not a replay", async () => {
      const [a, b, h] = [key("a"), key("b"), id("h")];
      await store.add([{ key: a, amount: 95 }]);
      const entries: HoldEntry[] = [
        { key: b, amount: 10, limit: 100, tag: "usd" },
        { key: a, amount: 10, limit: 100, tag: "usd" },
      ];
      assert.deepEqual(await store.reserveHold(hold(h, entries, T0), at(0)), {
        ok: false,
        replayed: false,
        failedIndex: 1,
        values: [0, 95],
      });
      assert.deepEqual(await store.settleHold(h, { usd: 1 }, at(0)), { settled: false, values: [] });
      assert.ok(!(await store.expireHolds(T0, 1000)).includes(h));
      assert.deepEqual(await store.get([a, b]), [95, 0]);
      await store.add([{ key: a, amount: -50 }]);
      assert.deepEqual(await store.reserveHold(hold(h, entries), at(0)), {
        ok: true,
        replayed: false,
        values: [10, 55],
      });
    });

    it("replays an id that is held or expired: nothing changes, current values are returned", async () => {
      const [a, h] = [key("a"), id("h")];
      const entries: HoldEntry[] = [{ key: a, amount: 10, limit: 15, tag: "usd" }];
      await withOwnStore(async ({ store: own }) => {
        await own.reserveHold(hold(h, entries), at(0));
        await own.add([{ key: a, amount: 1 }]);
        assert.deepEqual(await own.reserveHold(hold(h, entries), at(0)), {
          ok: true,
          replayed: true,
          values: [11],
        });
        assert.deepEqual(await own.expireHolds(T0 + EXPIRES, 10), [h]);
        assert.deepEqual(await own.reserveHold(hold(h, entries), at(0)), {
          ok: true,
          replayed: true,
          values: [1],
        });
        assert.deepEqual(await own.get([a]), [1]);
        assert.deepEqual(await own.expireHolds(T0 + EXPIRES, 10), []);
      });
    });

    it("records a hold with no entries", async () => {
      const h = id("h");
      assert.deepEqual(await store.reserveHold(hold(h, []), at(0)), {
        ok: true,
        replayed: false,
        values: [],
      });
      assert.deepEqual(await store.reserveHold(hold(h, []), at(0)), { ok: true, replayed: true, values: [] });
      assert.deepEqual(await store.settleHold(h, {}), { settled: true, values: [] });
      assert.deepEqual(await store.settleHold(h, {}), { settled: false, values: [] });
    });

    it("expires holds once expiresAtMs is reached, once; a late settle adds its actual in full", async () => {
      await withOwnStore(async ({ store: own }) => {
        const [a, s] = [key("a"), key("s")];
        const [h1, h2, h3] = ["h1", "h2", "h3"].map(id) as [string, string, string];
        const entries: HoldEntry[] = [
          { key: a, amount: 10, tag: "usd" },
          { key: s, amount: 1, tag: "requests", sliding: WINDOW },
        ];
        await own.reserveHold(hold(h1, entries, T0 + 2000), at(0));
        await own.reserveHold(hold(h2, entries, T0 + 1000), at(0));
        await own.reserveHold(hold(h3, entries, T0 + 3000), at(0));
        assert.deepEqual(await own.expireHolds(T0 + 999, 10), []);
        assert.deepEqual(await own.read([{ key: a }, { key: s, sliding: WINDOW }], at(999)), [30, 3]);
        // Earliest first, at most `max`, each exactly once.
        assert.deepEqual(await own.expireHolds(T0 + 2000, 1), [h2]);
        assert.deepEqual(await own.expireHolds(T0 + 2000, 10), [h1]);
        assert.deepEqual(await own.expireHolds(T0 + 2000, 10), []);
        assert.deepEqual(await own.read([{ key: a }, { key: s, sliding: WINDOW }], at(2000)), [10, 1]);
        // A settle after expiry counts the actual usage in full, once.
        assert.deepEqual(await own.settleHold(h1, { usd: 4, requests: 1 }, at(2500)), {
          settled: true,
          values: [14, 2],
        });
        assert.deepEqual(await own.settleHold(h1, { usd: 4 }, at(2500)), { settled: false, values: [] });
        // A settled hold is never expired.
        assert.deepEqual(await own.settleHold(h3, { usd: 7, requests: 1 }, at(2500)), {
          settled: true,
          values: [11, 2],
        });
        assert.deepEqual(await own.expireHolds(T0 + 10_000, 10), []);
        assert.deepEqual(await own.read([{ key: a }, { key: s, sliding: WINDOW }], at(2500)), [11, 2]);
      });
    });

    it("never recreates a plain key that expired before the settle or the expiry", async () => {
      await withOwnStore(async ({ store: own }) => {
        const [a, b, keep] = [key("a"), key("b"), key("keep")];
        const [h1, h2] = [id("h1"), id("h2")];
        await own.reserveHold(hold(h1, [{ key: a, amount: 10, ttlMs: 60_000, tag: "usd" }]), at(0));
        await own.reserveHold(
          hold(h2, [
            { key: b, amount: 10, ttlMs: 60_000, tag: "usd" },
            { key: keep, amount: 10, tag: "usd" },
          ]),
          at(0),
        );
        // Deleting stands for the window key's TTL running out (no sleeping).
        await own.delete([a, b]);
        assert.deepEqual(await own.settleHold(h1, { usd: 25 }, at(0)), { settled: true, values: [0] });
        assert.deepEqual(await own.expireHolds(T0 + EXPIRES, 10), [h2]);
        assert.deepEqual(await own.get([a, b, keep]), [0, 0, 0]);
        assert.equal(await own.getValue(a), null, "a is not recreated");
        assert.equal(await own.getValue(b), null, "b is not recreated");
        assert.equal(await own.getValue(keep), "0");
      });
    });

    it("settles a sliding hold into its own bucket, and drops the correction once it left the window", async () => {
      const [s, t, h1, h2] = [key("s"), key("t"), id("h1"), id("h2")];
      await store.reserveHold(hold(h1, [{ key: s, amount: 10, tag: "usd", sliding: WINDOW }]), at(0));
      await store.add([{ key: s, amount: 5, sliding: WINDOW }], at(2000));
      assert.deepEqual(await store.settleHold(h1, { usd: 4 }, at(3000)), { settled: true, values: [9] });
      // The correction went to bucket 0: once it leaves, only the 5 of bucket 2 is left.
      assert.deepEqual(await store.read([{ key: s, sliding: WINDOW }], at(5000)), [5]);

      await store.reserveHold(hold(h2, [{ key: t, amount: 10, tag: "usd", sliding: WINDOW }]), at(0));
      await store.add([{ key: t, amount: 5, sliding: WINDOW }], at(4000));
      assert.deepEqual(await store.settleHold(h2, { usd: 4 }, at(5000)), { settled: true, values: [5] });
      assert.deepEqual(await store.read([{ key: t, sliding: WINDOW }], at(5000)), [5]);
      assert.deepEqual(await store.read([{ key: t, sliding: WINDOW }], at(4000)), [15]);
    });

    it("forgets a hold after keepMs: a later settle is unknown", async () => {
      await withOwnStore(async (own) => {
        const [a, h] = [key("a"), id("h")];
        const short: Hold = {
          id: h,
          entries: [{ key: a, amount: 10, tag: "usd" }],
          expiresAtMs: T0,
          keepMs: TTL_MS,
        };
        await own.store.reserveHold(short, at(0));
        assert.deepEqual(await own.store.expireHolds(T0, 10), [h]);
        await own.advance(TTL_MS * 2);
        assert.deepEqual(await own.store.settleHold(h, { usd: 3 }), { settled: false, values: [] });
        assert.deepEqual(await own.store.get([a]), [0]);
        // The id is free again.
        assert.equal((await own.store.reserveHold(short, at(0))).replayed, false);
      });
    });

    it("refuses a settle on a damaged key without changing anything; expiry skips that key", async () => {
      await withOwnStore(async ({ store: own }) => {
        const [a, b, h] = [key("a"), key("b"), id("h")];
        await own.reserveHold(
          hold(h, [
            { key: b, amount: 5, tag: "usd" },
            { key: a, amount: 5, tag: "usd" },
          ]),
          at(0),
        );
        await own.setValue(a, "abc", 60_000);
        await assert.rejects(own.settleHold(h, { usd: 1 }, at(0)), TypeError);
        assert.deepEqual(await own.get([b]), [5]);
        assert.deepEqual(await own.expireHolds(T0 + EXPIRES, 10), [h]);
        assert.deepEqual(await own.get([b]), [0]);
        assert.equal(await own.getValue(a), "abc");
      });
    });

    it("rejects bad arguments with a TypeError before touching the store", async () => {
      const [a, h] = [key("a"), id("h")];
      const entry: HoldEntry = { key: a, amount: 1, tag: "usd" };
      const bad: Hold[] = [
        hold("", [entry]),
        hold(h, [{ key: a, amount: 1 } as HoldEntry]),
        hold(h, [{ ...entry, amount: 1.5 }]),
        hold(h, [{ ...entry, sliding: { bucketMs: 0, buckets: 1 } }]),
        { ...hold(h, [entry]), keepMs: 0 },
        // The record must outlive the hold.
        { ...hold(h, [entry], T0 + 10_000), keepMs: 10_000 },
        { ...hold(h, [entry]), expiresAtMs: Number.NaN },
      ];
      for (const attempt of bad) await assert.rejects(store.reserveHold(attempt, at(0)), TypeError);
      await assert.rejects(store.settleHold(h, { usd: 1.5 }), TypeError);
      await assert.rejects(store.settleHold(h, null as unknown as Record<string, number>), TypeError);
      await assert.rejects(store.settleHold("", {}), TypeError);
      await assert.rejects(store.expireHolds(-1, 10), TypeError);
      await assert.rejects(store.expireHolds(T0, 0), TypeError);
      assert.deepEqual(await store.get([a]), [0]);
      assert.deepEqual(await store.settleHold(h, {}), { settled: false, values: [] });
    });

    it("admits exactly 50 of 200 concurrent holds against a limit of 50; settling to 0 gives all back", async () => {
      const [a, s] = [key("a"), key("s")];
      const ids = Array.from({ length: 200 }, (_, index) => `${id("race")}:${index}`);
      const results = await Promise.all(
        ids.map((holdId) =>
          store.reserveHold(
            hold(holdId, [
              { key: a, amount: 1, limit: 50, tag: "requests" },
              { key: s, amount: 1, tag: "requests", sliding: WINDOW },
            ]),
            at(0),
          ),
        ),
      );
      const admitted = ids.filter((_, index) => results[index]!.ok);
      assert.equal(admitted.length, 50);
      assert.ok(results.every((result) => !result.replayed));
      assert.deepEqual(await store.read([{ key: a }, { key: s, sliding: WINDOW }], at(0)), [50, 50]);
      const settled = await Promise.all(
        ids.map((holdId) => store.settleHold(holdId, { requests: 0 }, at(0))),
      );
      assert.equal(settled.filter((result) => result.settled).length, 50);
      assert.deepEqual(await store.read([{ key: a }, { key: s, sliding: WINDOW }], at(0)), [0, 0]);
    });

    it("gives each amount back exactly once when two clients expire the same holds at once", async () => {
      await withOwnStore(async (own) => {
        const peer = own.peer();
        try {
          const a = key("a");
          const ids = Array.from({ length: 100 }, (_, index) => `${id("h")}:${index}`);
          await Promise.all(
            ids.map((holdId, index) =>
              own.store.reserveHold(
                hold(holdId, [{ key: a, amount: 1, tag: "usd" }], T0 + (index % 10)),
                at(0),
              ),
            ),
          );
          const drain = async (client: CounterStore) => {
            const expired: string[] = [];
            for (let batch = await client.expireHolds(T0 + 10, 7); batch.length > 0; ) {
              expired.push(...batch);
              batch = await client.expireHolds(T0 + 10, 7);
            }
            return expired;
          };
          const [mine, theirs] = await Promise.all([drain(own.store), drain(peer)]);
          assert.deepEqual([...mine, ...theirs].sort(), [...ids].sort());
          assert.deepEqual(await own.store.get([a]), [0]);
        } finally {
          await peer.close();
        }
      });
    });

    if (name === "redis") {
      it("stores the record, its keys and the pending set under the client's keyPrefix", async () => {
        const own = factory();
        const raw = own.raw!;
        const admin = raw.client();
        try {
          const [a, h] = [key("a"), id("h")];
          await own.store.reserveHold(hold(h, [{ key: a, amount: 1, tag: "usd" }]), at(0));
          const record = await admin.hgetall(`${raw.keyPrefix}counters:hold:${h}`);
          assert.equal(record.state, "held");
          assert.equal(record.id, h);
          assert.equal(JSON.parse(record.entries!)[0].k, `${raw.keyPrefix}${a}`);
          const pending = await admin.zrange(`${raw.keyPrefix}counters:holds:pending`, "0", "-1");
          assert.deepEqual(pending, [`${raw.keyPrefix}counters:hold:${h}`]);
          assert.deepEqual(await own.store.expireHolds(T0 + EXPIRES, 10), [h]);
          assert.equal(await admin.hget(`${raw.keyPrefix}counters:hold:${h}`, "state"), "expired");
          const ttl = await admin.pttl(`${raw.keyPrefix}counters:hold:${h}`);
          assert.ok(ttl > 590_000, `record ttl kept, ${ttl}`);
          assert.equal(await admin.exists(a, `counters:hold:${h}`), 0, "nothing outside the prefix");
        } finally {
          await own.store.close();
        }
      });
    }
  });
}

forEachStore(holdsContract);
