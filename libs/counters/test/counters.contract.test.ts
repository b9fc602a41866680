import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CounterStore, CounterStoreUnavailableError, createRedisCounterStore } from "../src/index.js";
import {
  type ContractFactory,
  type ContractHarness,
  forEachStore,
  TTL_MS,
  unique,
} from "./contract-harness.js";
import { closedPortUrl, startFakeRedis } from "./fake-redis.js";

/**
 * The contract every CounterStore passes, written once. `factory` is called once per suite and
 * once more for the close() test; keys are unique per test so tests never see each other's state.
 */
function countersContract(name: string, factory: ContractFactory): void {
  describe(`CounterStore contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: CounterStore;
    const key = unique;

    before(() => {
      harness = factory();
      store = harness.store;
    });
    after(() => store.close());

    it("reads missing keys as 0 and empty lists without a round trip", async () => {
      assert.deepEqual(await store.get([key("a"), key("b")]), [0, 0]);
      assert.deepEqual(await store.get([]), []);
      assert.deepEqual(await store.reserve([]), { ok: true, values: [] });
      assert.deepEqual(await store.add([]), []);
      await store.delete([]);
    });

    it("reserves all entries and returns the new values, up to exactly the limit", async () => {
      const [a, b] = [key("a"), key("b")];
      const first = await store.reserve([
        { key: a, amount: 7, limit: 10 },
        { key: b, amount: 3, limit: 3 },
      ]);
      assert.deepEqual(first, { ok: true, values: [7, 3] });
      assert.deepEqual(await store.reserve([{ key: a, amount: 3, limit: 10 }]), { ok: true, values: [10] });
      assert.deepEqual(await store.get([a, b]), [10, 3]);
    });

    it("changes nothing when one entry is over its limit, and names the first failing entry", async () => {
      const [a, b, c, d] = [key("a"), key("b"), key("c"), key("d")];
      await store.add([{ key: b, amount: 8 }]);
      await store.add([{ key: d, amount: 1 }]);
      const result = await store.reserve([
        { key: a, amount: 5, limit: 10, ttlMs: TTL_MS },
        { key: b, amount: 5, limit: 10, ttlMs: TTL_MS },
        { key: c, amount: 5, limit: null },
        { key: d, amount: 5, limit: 2 },
      ]);
      assert.deepEqual(result, { ok: false, failedIndex: 1, values: [0, 8, 0, 1] });
      assert.deepEqual(await store.get([a, b, c, d]), [0, 8, 0, 1]);
      // Not even the TTLs of the failed call were applied.
      assert.equal(await store.ttlMs(a), null);
      assert.equal(await store.ttlMs(b), null);
    });

    it("refuses amount 0 once the limit is reached, and admits it below the limit", async () => {
      const a = key("a");
      await store.add([{ key: a, amount: 5 }]);
      assert.deepEqual(await store.reserve([{ key: a, amount: 0, limit: 5 }]), {
        ok: false,
        failedIndex: 0,
        values: [5],
      });
      assert.deepEqual(await store.reserve([{ key: a, amount: 0, limit: 6 }]), { ok: true, values: [5] });
      assert.deepEqual(await store.reserve([{ key: a, amount: 0, limit: 4 }]), {
        ok: false,
        failedIndex: 0,
        values: [5],
      });
    });

    it("treats a null or absent limit as unlimited", async () => {
      const [a, b] = [key("a"), key("b")];
      const big = 2 ** 50;
      assert.deepEqual(
        await store.reserve([
          { key: a, amount: big, limit: null },
          { key: b, amount: big },
        ]),
        { ok: true, values: [big, big] },
      );
    });

    it("checks repeated keys in one call against the running value", async () => {
      const a = key("a");
      assert.deepEqual(
        await store.reserve([
          { key: a, amount: 2, limit: 5 },
          { key: a, amount: 3, limit: 5 },
        ]),
        { ok: true, values: [2, 5] },
      );
      assert.deepEqual(
        await store.reserve([
          { key: a, amount: -1, limit: 5 },
          { key: a, amount: 2, limit: 5 },
        ]),
        { ok: false, failedIndex: 1, values: [5, 5] },
      );
    });

    it("adds positive and negative amounts, below zero too", async () => {
      const [a, b] = [key("a"), key("b")];
      assert.deepEqual(
        await store.add([
          { key: a, amount: 10 },
          { key: b, amount: -4 },
        ]),
        [10, -4],
      );
      assert.deepEqual(await store.add([{ key: a, amount: -13 }]), [-3]);
      assert.deepEqual(await store.get([a, b]), [-3, -4]);
      assert.deepEqual(await store.reserve([{ key: a, amount: 3, limit: 0 }]), { ok: true, values: [0] });
    });

    it("expires reserve and add keys after their TTL; no TTL keeps the existing one", async () => {
      const [a, b] = [key("a"), key("b")];
      await store.reserve([{ key: a, amount: 1, limit: 5, ttlMs: TTL_MS }]);
      await store.add([{ key: b, amount: 2, ttlMs: TTL_MS }]);
      await store.add([{ key: a, amount: 1 }]);
      for (const k of [a, b]) {
        const ttl = await store.ttlMs(k);
        assert.ok(ttl !== null && ttl > 0 && ttl <= TTL_MS, `ttl of ${k} is ${ttl}`);
      }
      await harness.advance(TTL_MS * 2);
      assert.deepEqual(await store.get([a, b]), [0, 0]);
      assert.equal(await store.ttlMs(a), null);
      // An expired window starts again from 0.
      assert.deepEqual(await store.reserve([{ key: a, amount: 5, limit: 5, ttlMs: TTL_MS }]), {
        ok: true,
        values: [5],
      });
    });

    it("stores string values with a TTL", async () => {
      const [a, counter] = [key("a"), key("counter")];
      assert.equal(await store.getValue(a), null);
      assert.equal(await store.ttlMs(a), null);
      await store.setValue(a, "open", TTL_MS);
      assert.equal(await store.getValue(a), "open");
      const ttl = await store.ttlMs(a);
      assert.ok(ttl !== null && ttl > 0 && ttl <= TTL_MS, `ttl is ${ttl}`);
      await store.add([{ key: counter, amount: 42 }]);
      assert.equal(await store.getValue(counter), "42");
      assert.equal(await store.ttlMs(counter), null, "a key without expiry has no TTL");
      await harness.advance(TTL_MS * 2);
      assert.equal(await store.getValue(a), null);
      assert.equal(await store.ttlMs(a), null);
    });

    it("deletes keys, ignoring missing ones", async () => {
      const [a, b, c] = [key("a"), key("b"), key("c")];
      await store.add([{ key: a, amount: 3 }]);
      await store.setValue(b, "x", 60_000);
      await store.delete([a, b, c]);
      assert.deepEqual(await store.get([a]), [0]);
      assert.equal(await store.getValue(b), null);
    });

    it("rejects bad arguments with a TypeError before touching the store", async () => {
      const a = key("a");
      for (const amount of [1.5, Number.NaN, 2 ** 53, Number.POSITIVE_INFINITY]) {
        await assert.rejects(store.reserve([{ key: a, amount, limit: 10 }]), TypeError);
        await assert.rejects(store.add([{ key: a, amount }]), TypeError);
      }
      await assert.rejects(store.reserve([{ key: a, amount: 1, limit: 0.5 }]), TypeError);
      await assert.rejects(store.add([{ key: a, amount: 1, ttlMs: 0 }]), TypeError);
      await assert.rejects(store.setValue(a, "x", 1.5), TypeError);
      await assert.rejects(store.get([""]), TypeError);
      assert.deepEqual(await store.get([a]), [0]);
    });

    it("refuses non-integer stored values and overflow without changing anything", async () => {
      const [text, other, big] = [key("text"), key("other"), key("big")];
      await store.setValue(text, "abc", 60_000);
      await assert.rejects(
        store.reserve([
          { key: other, amount: 1 },
          { key: text, amount: 1 },
        ]),
        TypeError,
      );
      await assert.rejects(store.add([{ key: text, amount: 1 }]), TypeError);
      await assert.rejects(store.get([text]), TypeError);
      assert.deepEqual(await store.get([other]), [0]);
      await store.add([{ key: big, amount: Number.MAX_SAFE_INTEGER }]);
      await assert.rejects(
        store.add([
          { key: other, amount: 1 },
          { key: big, amount: 1 },
        ]),
        RangeError,
      );
      assert.deepEqual(await store.get([other, big]), [0, Number.MAX_SAFE_INTEGER]);
    });

    it("admits exactly the limit under 200 concurrent reserves, 20 times over", async () => {
      for (let round = 0; round < 20; round++) {
        const k = key(`race${round}`);
        const results = await Promise.all(
          Array.from({ length: 200 }, () => store.reserve([{ key: k, amount: 1, limit: 50 }])),
        );
        const admitted = results.filter((result) => result.ok);
        assert.equal(admitted.length, 50, `round ${round}`);
        // Every admitted call saw its own increment: values 1..50, each exactly once.
        const seen = admitted.map((result) => result.values[0]).sort((x, y) => x! - y!);
        assert.deepEqual(
          seen,
          Array.from({ length: 50 }, (_, index) => index + 1),
        );
        assert.deepEqual(await store.get([k]), [50]);
      }
    });

    it("never exceeds any limit when concurrent reserves share one scope of several", async () => {
      for (let round = 0; round < 5; round++) {
        const [project, tokenA, tokenB] = [key("project"), key("tokenA"), key("tokenB")];
        const limits = { project: 300, tokenA: 200, tokenB: 250 };
        const calls = Array.from({ length: 200 }, (_, index) => {
          const amount = 1 + (index % 5);
          const token = index % 2 === 0 ? tokenA : tokenB;
          const tokenLimit = token === tokenA ? limits.tokenA : limits.tokenB;
          const entries = [
            { key: project, amount, limit: limits.project },
            { key: token, amount, limit: tokenLimit },
          ];
          return store.reserve(entries).then((result) => ({ token, amount, ok: result.ok }));
        });
        const results = await Promise.all(calls);
        const sum = (token?: string) =>
          results
            .filter((r) => r.ok && (token === undefined || r.token === token))
            .reduce((total, r) => total + r.amount, 0);
        const [projectValue, aValue, bValue] = await store.get([project, tokenA, tokenB]);
        assert.ok(projectValue! <= limits.project && aValue! <= limits.tokenA && bValue! <= limits.tokenB);
        assert.deepEqual([projectValue, aValue, bValue], [sum(), sum(tokenA), sum(tokenB)]);
        // The project scope ran out first, within one request's amount of its limit.
        assert.ok(projectValue! > limits.project - 5, `project ${projectValue}`);
      }
    });

    it("serves a burst of calls issued right after creation", async () => {
      const fresh = factory().store;
      try {
        const k = key("burst");
        const results = await Promise.all(
          Array.from({ length: 100 }, () => fresh.reserve([{ key: k, amount: 1, limit: 60 }])),
        );
        assert.equal(results.filter((result) => result.ok).length, 60);
        await fresh.delete([k]);
      } finally {
        await fresh.close();
      }
    });

    it("fails with CounterStoreUnavailableError after close", async () => {
      const closing = factory().store;
      await closing.ping();
      await closing.close();
      await closing.close();
      await assert.rejects(closing.reserve([{ key: key("a"), amount: 1 }]), CounterStoreUnavailableError);
      await assert.rejects(closing.ping(), CounterStoreUnavailableError);
    });
  });
}

forEachStore(countersContract);

describe("Redis counter store failure modes (no Redis server needed)", () => {
  const entries = [{ key: "budget:a", amount: 1, limit: 10 }];

  it("fails fast when Redis accepts connections but never answers", async () => {
    const fake = await startFakeRedis({ answering: false });
    const store = createRedisCounterStore({ url: fake.url, commandTimeoutMs: 200 });
    try {
      const started = Date.now();
      const error = await store.reserve(entries).then(
        () => assert.fail("reserve resolved"),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof CounterStoreUnavailableError, String(error));
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.ok(!error.message.includes("fake-secret"), error.message);
      await assert.rejects(store.ping(), CounterStoreUnavailableError);
    } finally {
      await store.close();
      await fake.close();
    }
  });

  it("fails fast when Redis freezes after the connection is up", async () => {
    const fake = await startFakeRedis({ answering: true });
    const store = createRedisCounterStore({ url: fake.url, commandTimeoutMs: 200 });
    try {
      await store.ping();
      fake.freeze();
      const started = Date.now();
      await assert.rejects(store.reserve(entries), CounterStoreUnavailableError);
      await assert.rejects(store.get(["budget:a"]), /Command timed out/);
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    } finally {
      await store.close();
      await fake.close();
    }
  });

  it("fails fast when nothing listens on the port", async () => {
    const store = createRedisCounterStore({ url: await closedPortUrl(), commandTimeoutMs: 200 });
    try {
      const started = Date.now();
      await assert.rejects(store.reserve(entries), CounterStoreUnavailableError);
      await assert.rejects(store.add(entries), CounterStoreUnavailableError);
      assert.ok(Date.now() - started < 500, `took ${Date.now() - started} ms`);
    } finally {
      await store.close();
    }
  });
});
