import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type CounterStore,
  CounterStoreUnavailableError,
  createRedisCounterStore,
  type HashAddEntry,
} from "../src/index.js";
import {
  type ContractFactory,
  type ContractHarness,
  forEachStore,
  TTL_MS,
  unique,
} from "./contract-harness.js";
import { startFakeRedis } from "./fake-redis.js";

/**
 * hashAddOnce / hashGetAll: integer hashes counted at most once per marker (the metric state every
 * exporter replica shares). Same suite for the memory store and Redis.
 */
function hashesContract(name: string, factory: ContractFactory): void {
  describe(`CounterStore hashes contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: CounterStore;
    const key = unique;
    const LONG_TTL = 60_000;

    before(() => {
      harness = factory();
      store = harness.store;
    });
    after(() => store.close());

    it("reads a missing hash as {}", async () => {
      assert.deepEqual(await store.hashGetAll(key("missing")), {});
    });

    it("adds every entry once, and changes nothing when the marker is already there", async () => {
      const [seen, series, other] = [key("seen"), key("series"), key("other")];
      const marker = { key: seen, field: "record-1", ttlMs: LONG_TTL };
      const entries: HashAddEntry[] = [
        { key: series, field: "requests", amount: 1 },
        { key: series, field: "tokens", amount: 120 },
        { key: other, field: "a", amount: -3, ttlMs: LONG_TTL },
      ];
      assert.equal(await store.hashAddOnce(marker, entries), true);
      assert.deepEqual(await store.hashGetAll(series), { requests: 1, tokens: 120 });
      assert.deepEqual(await store.hashGetAll(other), { a: -3 });
      // Same marker, even with other entries: nothing changes.
      assert.equal(await store.hashAddOnce(marker, [{ key: series, field: "requests", amount: 5 }]), false);
      assert.equal(await store.hashAddOnce(marker, entries), false);
      assert.deepEqual(await store.hashGetAll(series), { requests: 1, tokens: 120 });
      assert.deepEqual(await store.hashGetAll(seen), { "record-1": 1 });
      // Another marker field in the same hash counts again.
      assert.equal(await store.hashAddOnce({ ...marker, field: "record-2" }, entries), true);
      assert.deepEqual(await store.hashGetAll(series), { requests: 2, tokens: 240 });
      assert.deepEqual(await store.hashGetAll(other), { a: -6 });
    });

    it("applies entries naming one field in order, creates fields with 0, and takes an empty list", async () => {
      const [seen, series] = [key("seen"), key("series")];
      assert.equal(
        await store.hashAddOnce({ key: seen, field: "x", ttlMs: LONG_TTL }, [
          { key: series, field: "f", amount: 4 },
          { key: series, field: "f", amount: 6 },
          { key: series, field: "zero", amount: 0 },
        ]),
        true,
      );
      assert.deepEqual(await store.hashGetAll(series), { f: 10, zero: 0 });
      assert.equal(await store.hashAddOnce({ key: seen, field: "y", ttlMs: LONG_TTL }, []), true);
      assert.equal(await store.hashAddOnce({ key: seen, field: "y", ttlMs: LONG_TTL }, []), false);
      assert.deepEqual(await store.hashGetAll(seen), { x: 1, y: 1 });
    });

    it("sets the marker's TTL and the entries' TTLs, and keeps the expiry of entries without one", async () => {
      const [seen, withTtl, without] = [key("seen"), key("withTtl"), key("without")];
      await store.hashAddOnce({ key: seen, field: "m", ttlMs: LONG_TTL }, [
        { key: withTtl, field: "f", amount: 1, ttlMs: 2 * LONG_TTL },
        { key: without, field: "f", amount: 1 },
      ]);
      const markerTtl = await store.ttlMs(seen);
      const entryTtl = await store.ttlMs(withTtl);
      assert.ok(markerTtl !== null && markerTtl > 0 && markerTtl <= LONG_TTL, `marker ttl ${markerTtl}`);
      assert.ok(
        entryTtl !== null && entryTtl > LONG_TTL && entryTtl <= 2 * LONG_TTL,
        `entry ttl ${entryTtl}`,
      );
      assert.equal(await store.ttlMs(without), null);
    });

    it("counts a marker again once it expired: its TTL is how long a call is remembered", async () => {
      const [seen, series] = [key("seen"), key("series")];
      const marker = { key: seen, field: "m", ttlMs: TTL_MS };
      const entries = [{ key: series, field: "f", amount: 1 }];
      assert.equal(await store.hashAddOnce(marker, entries), true);
      await harness.advance(TTL_MS + 50);
      assert.deepEqual(await store.hashGetAll(seen), {});
      assert.equal(await store.hashAddOnce(marker, entries), true);
      assert.deepEqual(await store.hashGetAll(series), { f: 2 });
    });

    it("counts exactly once when many callers race on one marker", async () => {
      const peer = harness.peer();
      try {
        for (let round = 0; round < 5; round++) {
          const [seen, series] = [key(`seen${round}`), key(`series${round}`)];
          const call = (client: CounterStore) =>
            client.hashAddOnce({ key: seen, field: "record", ttlMs: LONG_TTL }, [
              { key: series, field: "requests", amount: 1 },
              { key: series, field: "tokens", amount: 7 },
            ]);
          const results = await Promise.all(
            Array.from({ length: 100 }, (_, index) => call(index % 2 === 0 ? store : peer)),
          );
          assert.equal(results.filter(Boolean).length, 1, `round ${round}`);
          assert.deepEqual(await store.hashGetAll(series), { requests: 1, tokens: 7 });
        }
      } finally {
        await peer.close();
      }
    });

    it("refuses bad arguments with a TypeError before touching the store", async () => {
      const [seen, series] = [key("seen"), key("series")];
      const marker = { key: seen, field: "m", ttlMs: LONG_TTL };
      const bad: [Parameters<CounterStore["hashAddOnce"]>[0], HashAddEntry[]][] = [
        [{ ...marker, key: "" }, []],
        [{ ...marker, field: "" }, []],
        [{ ...marker, ttlMs: 0 }, []],
        [{ ...marker, ttlMs: 1.5 }, []],
        [{ key: seen, field: "m" } as never, []],
        [marker, [{ key: "", field: "f", amount: 1 }]],
        [marker, [{ key: series, field: "", amount: 1 }]],
        [marker, [{ key: series, field: "f", amount: 1.5 }]],
        [marker, [{ key: series, field: "f", amount: Number.MAX_SAFE_INTEGER + 1 }]],
        [marker, [{ key: series, field: "f", amount: 1, ttlMs: -1 }]],
        [marker, [{ key: seen, field: "m", amount: 1 }]],
        [marker, "nope" as never],
      ];
      for (const [m, entries] of bad) {
        await assert.rejects(store.hashAddOnce(m, entries), TypeError, JSON.stringify([m, entries]));
      }
      await assert.rejects(store.hashGetAll(""), TypeError);
      assert.deepEqual(await store.hashGetAll(seen), {});
      assert.deepEqual(await store.hashGetAll(series), {});
    });

    it("refuses keys of the other kind, and an overflow, changing nothing", async () => {
      const [seen, series, plain] = [key("seen"), key("series"), key("plain")];
      await store.setValue(plain, "7", LONG_TTL);
      const marker = { key: seen, field: "m", ttlMs: LONG_TTL };
      await assert.rejects(store.hashAddOnce(marker, [{ key: plain, field: "f", amount: 1 }]), TypeError);
      await assert.rejects(store.hashAddOnce({ ...marker, key: plain }, []), TypeError);
      await assert.rejects(store.hashGetAll(plain), TypeError);
      assert.deepEqual(await store.hashGetAll(seen), {});

      await store.hashAddOnce({ ...marker, field: "big" }, [
        { key: series, field: "f", amount: Number.MAX_SAFE_INTEGER },
      ]);
      await assert.rejects(
        store.hashAddOnce(marker, [
          { key: series, field: "g", amount: 1 },
          { key: series, field: "f", amount: 1 },
        ]),
        RangeError,
      );
      // Neither the marker nor the first entry was written.
      assert.deepEqual(await store.hashGetAll(seen), { big: 1 });
      assert.deepEqual(await store.hashGetAll(series), { f: Number.MAX_SAFE_INTEGER });
      // A hash of integers is not a plain counter.
      await assert.rejects(store.get([series]), TypeError);
    });

    it("refuses a hash field that is not an integer (Redis: written by another client)", async (t) => {
      if (!harness.raw) {
        t.skip("the memory store cannot hold one");
        return;
      }
      const [seen, series] = [key("seen"), key("series")];
      const admin = harness.raw.client();
      await admin.hset(`${harness.raw.keyPrefix}${series}`, "f", "1.5");
      await assert.rejects(
        store.hashAddOnce({ key: seen, field: "m", ttlMs: LONG_TTL }, [
          { key: series, field: "f", amount: 1 },
        ]),
        TypeError,
      );
      await assert.rejects(store.hashGetAll(series), TypeError);
      assert.deepEqual(await store.hashGetAll(seen), {});
    });

    it("fails with CounterStoreUnavailableError after close", async () => {
      const closing = factory().store;
      await closing.close();
      await assert.rejects(
        closing.hashAddOnce({ key: key("seen"), field: "m", ttlMs: LONG_TTL }, []),
        CounterStoreUnavailableError,
      );
      await assert.rejects(closing.hashGetAll(key("series")), CounterStoreUnavailableError);
    });
  });
}

forEachStore(hashesContract);

describe("hash operations on a Redis that never answers (no Redis server needed)", () => {
  it("fail fast with CounterStoreUnavailableError", async () => {
    const fake = await startFakeRedis({ answering: false });
    const store = createRedisCounterStore({ url: fake.url, commandTimeoutMs: 200 });
    try {
      const started = Date.now();
      await assert.rejects(
        store.hashAddOnce({ key: "seen", field: "m", ttlMs: 1000 }, [{ key: "s", field: "f", amount: 1 }]),
        CounterStoreUnavailableError,
      );
      await assert.rejects(store.hashGetAll("s"), CounterStoreUnavailableError);
      assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
    } finally {
      await store.close();
      await fake.close();
    }
  });
});
