import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type CounterStore, CounterStoreUnavailableError, createCounterStore } from "@gw/counters";
import { createHealthStore } from "./health-store.js";
import type { AttemptOutcome, HealthEvent, HealthSettings, HealthStore } from "./types.js";

/** Aligned to the minute (and so to every bucket size used here): tests read exact bucket edges. */
const T0 = 1_699_999_980_000;

/** The defaults except a 10 s half-life, so one bucket back weighs exactly 0.5. */
const SETTINGS: Partial<HealthSettings> = {
  windowMs: 60_000,
  bucketMs: 10_000,
  halfLifeMs: 10_000,
  minCalls: 5,
  errorRateThreshold: 0.5,
  openMs: 30_000,
  defaultCooldownMs: 30_000,
};

/** A CounterStore that logs which methods were called (round trips) and which keys were written. */
function tracked(store: CounterStore, touched: Set<string>) {
  const calls: string[] = [];
  const note = (method: string, keys: string[]) => {
    calls.push(method);
    for (const key of keys) touched.add(key);
  };
  const wrapper: CounterStore = {
    kind: store.kind,
    reserve: (entries) => {
      note(
        "reserve",
        entries.map((entry) => entry.key),
      );
      return store.reserve(entries);
    },
    add: (entries) => {
      note(
        "add",
        entries.map((entry) => entry.key),
      );
      return store.add(entries);
    },
    get: (keys) => {
      note("get", []);
      return store.get(keys);
    },
    setValue: (key, value, ttlMs) => {
      note("setValue", [key]);
      return store.setValue(key, value, ttlMs);
    },
    getValue: (key) => {
      note("getValue", []);
      return store.getValue(key);
    },
    ttlMs: (key) => {
      note("ttlMs", []);
      return store.ttlMs(key);
    },
    delete: (keys) => {
      note("delete", []);
      return store.delete(keys);
    },
    read: (entries, options) => {
      note("read", []);
      return store.read(entries, options);
    },
    reserveHold: (hold, options) => {
      note(
        "reserveHold",
        hold.entries.map((entry) => entry.key),
      );
      return store.reserveHold(hold, options);
    },
    settleHold: (id, actual, options) => {
      note("settleHold", []);
      return store.settleHold(id, actual, options);
    },
    expireHolds: (nowMs, max) => {
      note("expireHolds", []);
      return store.expireHolds(nowMs, max);
    },
    hashAddOnce: (marker, entries) => {
      note("hashAddOnce", [marker.key, ...entries.map((entry) => entry.key)]);
      return store.hashAddOnce(marker, entries);
    },
    hashGetAll: (key) => {
      note("hashGetAll", []);
      return store.hashGetAll(key);
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: wrapper, calls };
}

/**
 * The same suite against every counter store: the in-process one, and Redis when REDIS_URL is set.
 * Each test gets its own fake clock, health store and model ids, so tests never see each other.
 * The counter stores keep real-time TTLs; health state is derived from stored values and the fake
 * clock (openUntil, cooldownUntil, bucket starts), so both stores give the same answers.
 */
function healthSuite(name: string, open: () => CounterStore): void {
  describe(`health store: ${name}`, () => {
    let counters: CounterStore;
    const touched = new Set<string>();

    before(() => {
      counters = open();
    });
    after(async () => {
      const keys = [...touched];
      for (let index = 0; index < keys.length; index += 500)
        await counters.delete(keys.slice(index, index + 500));
      await counters.close();
    });

    function setup(options: { keyPrefix?: string } = {}) {
      const clock = { now: T0 };
      const { store, calls } = tracked(counters, touched);
      const health = createHealthStore(store, { now: () => clock.now, ...options });
      const modelId = `model-${randomUUID().slice(0, 8)}`;
      const advance = (ms: number) => {
        clock.now += ms;
      };
      return { clock, health, calls, modelId, advance, store };
    }

    const outcome = (modelId: string, kind: AttemptOutcome["kind"], extra: Partial<AttemptOutcome> = {}) => ({
      modelId,
      projectId: "project-1",
      kind,
      status: kind === "success" ? 200 : kind === "rate_limited" ? 429 : 0,
      latencyMs: 100,
      ...extra,
    });

    /** Record `count` attempts; returns every event they caused, in order. */
    async function recordMany(
      health: HealthStore,
      count: number,
      attempt: AttemptOutcome,
      settings: Partial<HealthSettings> = SETTINGS,
    ): Promise<HealthEvent[]> {
      const events: HealthEvent[] = [];
      for (let index = 0; index < count; index++) events.push(...(await health.record(attempt, settings)));
      return events;
    }

    const names = (events: HealthEvent[]) => events.map((event) => event.event);

    async function healthOf(
      health: HealthStore,
      modelId: string,
      settings: Partial<HealthSettings> = SETTINGS,
    ) {
      return (await health.snapshot([modelId], settings)).get(modelId)!;
    }

    it("reports never-seen models as healthy, reading all of them in one round trip", async () => {
      const { health, calls, modelId } = setup();
      const other = `${modelId}-b`;
      const snapshot = await health.snapshot([modelId, other, modelId], SETTINGS);
      assert.deepEqual([...snapshot.keys()], [modelId, other]);
      for (const state of snapshot.values()) {
        assert.deepEqual(state, { errorRate: null, calls: 0, circuit: "closed", latencyMs: null });
      }
      assert.deepEqual(calls, ["get"]);
      assert.deepEqual(await health.snapshot([], SETTINGS), new Map());
    });

    it("decays older buckets in the error rate, calls and latency, and forgets the window's past", async () => {
      const { health, modelId, advance } = setup();
      const settings = { ...SETTINGS, minCalls: 3, errorRateThreshold: 1 };
      const record = (kind: AttemptOutcome["kind"], latencyMs = 0) =>
        health.record(outcome(modelId, kind, { latencyMs }), settings);
      assert.deepEqual(await record("success", 100), []);
      assert.deepEqual(await record("success", 300), []);
      assert.deepEqual(await record("error"), []);
      assert.deepEqual(await record("error"), []);
      assert.deepEqual(await healthOf(health, modelId, settings), {
        errorRate: 0.5,
        calls: 4,
        circuit: "closed",
        latencyMs: 200,
      });

      // One bucket later the first bucket weighs 0.5: ok 2*0.5 + 1, err 2*0.5.
      advance(10_000);
      await record("success", 400);
      let state = await healthOf(health, modelId, settings);
      assert.equal(state.calls, 3);
      assert.equal(state.errorRate, 1 / 3);
      assert.equal(state.latencyMs, (400 * 0.5 + 400) / 2);

      // Another bucket later: weights 0.25 and 0.5, 1.5 decayed calls are below minCalls 3.
      advance(10_000);
      state = await healthOf(health, modelId, settings);
      assert.equal(state.calls, 1.5);
      assert.equal(state.errorRate, null);
      assert.equal(state.latencyMs, (400 * 0.25 + 400 * 0.5) / 1);

      // At T0 + 60 s the first bucket has left the window; the second is 5 buckets back.
      advance(40_000);
      state = await healthOf(health, modelId, settings);
      assert.equal(state.calls, 1 / 32);
      assert.equal(state.latencyMs, 400);
      advance(10_000);
      assert.deepEqual(await healthOf(health, modelId, settings), {
        errorRate: null,
        calls: 0,
        circuit: "closed",
        latencyMs: null,
      });
    });

    it("has no error rate below minCalls, and degrades once minCalls calls are over the threshold", async () => {
      const { health, modelId } = setup();
      assert.deepEqual(await recordMany(health, 4, outcome(modelId, "error")), []);
      const state = await healthOf(health, modelId);
      assert.equal(state.errorRate, null);
      assert.equal(state.calls, 4);
      assert.equal(state.circuit, "closed");

      const events = await health.record(outcome(modelId, "error"), SETTINGS);
      assert.deepEqual(events, [
        {
          event: "provider.degraded",
          severity: "warning",
          modelId,
          projectId: "project-1",
          details: {
            modelId,
            errorRate: 1,
            calls: 5,
            windowMs: 60_000,
            threshold: 0.5,
            openUntil: new Date(T0 + 30_000).toISOString(),
          },
        },
      ]);
    });

    it("opens the circuit when degraded, half-opens after openMs, and a good probe closes it", async () => {
      const { health, modelId, advance } = setup();
      const events = await recordMany(
        health,
        5,
        outcome(modelId, "error", { status: 502, reason: "bad gateway" }),
      );
      assert.deepEqual(names(events), ["provider.error", "provider.degraded"]);
      assert.deepEqual(await healthOf(health, modelId), {
        errorRate: 1,
        calls: 5,
        circuit: "open",
        openUntil: T0 + 30_000,
        latencyMs: null,
      });

      // Answers of requests that were in flight when it opened change nothing.
      advance(29_999);
      assert.deepEqual(await health.record(outcome(modelId, "success"), SETTINGS), []);
      assert.equal((await healthOf(health, modelId)).circuit, "open");

      advance(1);
      const halfOpen = await healthOf(health, modelId);
      assert.equal(halfOpen.circuit, "half_open");
      assert.equal(halfOpen.openUntil, T0 + 30_000);

      const recovered = await health.record(outcome(modelId, "success"), SETTINGS);
      assert.equal(recovered.length, 1);
      assert.equal(recovered[0]!.event, "provider.recovered");
      assert.equal(recovered[0]!.severity, "info");
      assert.equal(recovered[0]!.details.via, "probe_succeeded");
      // Closing starts a fresh window: the old errors would re-open it on the next error.
      assert.deepEqual(await healthOf(health, modelId), {
        errorRate: null,
        calls: 0,
        circuit: "closed",
        latencyMs: null,
      });
      assert.deepEqual(await health.record(outcome(modelId, "error"), SETTINGS), []);
    });

    it("re-opens on an error while half-open, without a second degraded event", async () => {
      const { health, modelId, advance } = setup();
      assert.deepEqual(names(await recordMany(health, 5, outcome(modelId, "error"))), ["provider.degraded"]);
      advance(30_000);
      assert.equal((await healthOf(health, modelId)).circuit, "half_open");

      assert.deepEqual(await health.record(outcome(modelId, "error"), SETTINGS), []);
      const reopened = await healthOf(health, modelId);
      assert.equal(reopened.circuit, "open");
      assert.equal(reopened.openUntil, T0 + 60_000);

      advance(30_000);
      assert.equal((await healthOf(health, modelId)).circuit, "half_open");
      assert.deepEqual(names(await health.record(outcome(modelId, "success"), SETTINGS)), [
        "provider.recovered",
      ]);
      assert.equal((await healthOf(health, modelId)).circuit, "closed");
    });

    it("closes a half-open circuit nobody probed after a window, and the next success recovers", async () => {
      const { health, modelId, advance } = setup();
      await recordMany(health, 5, outcome(modelId, "error"));
      advance(30_000 + 60_000 - 1);
      assert.equal((await healthOf(health, modelId)).circuit, "half_open");
      advance(1);
      assert.equal((await healthOf(health, modelId)).circuit, "closed");
      assert.deepEqual(names(await health.record(outcome(modelId, "success"), SETTINGS)), [
        "provider.recovered",
      ]);
    });

    it("recovers when the error rate falls below half the threshold", async () => {
      const { health, modelId } = setup();
      await recordMany(health, 5, outcome(modelId, "error"));
      // 5 errors / 20 calls = 0.25 is not below 0.25; the 16th success makes it 5/21.
      assert.deepEqual(await recordMany(health, 15, outcome(modelId, "success")), []);
      const events = await health.record(outcome(modelId, "success"), SETTINGS);
      assert.deepEqual(names(events), ["provider.recovered"]);
      assert.equal(events[0]!.details.via, "error_rate_fell");
      assert.equal(events[0]!.details.errorRate, Math.round((5 / 21) * 10_000) / 10_000);
      assert.equal((await healthOf(health, modelId)).circuit, "closed");
    });

    it("cools a model down after a 429 for its Retry-After, without counting it as a call", async () => {
      const { health, calls, modelId, advance, store } = setup();
      const events = await health.record(outcome(modelId, "rate_limited", { retryAfterMs: 5_000 }), SETTINGS);
      assert.deepEqual(calls, ["setValue"]);
      assert.deepEqual(events, [
        {
          event: "provider.rate_limited",
          severity: "warning",
          modelId,
          projectId: "project-1",
          details: {
            modelId,
            status: 429,
            retryAfterMs: 5_000,
            cooldownMs: 5_000,
            cooldownUntil: new Date(T0 + 5_000).toISOString(),
          },
        },
      ]);
      const ttl = await store.ttlMs(`health:${modelId}:cooldown`);
      assert.ok(ttl !== null && ttl > 0 && ttl <= 5_000, String(ttl));
      assert.deepEqual(await healthOf(health, modelId), {
        errorRate: null,
        calls: 0,
        circuit: "closed",
        cooldownUntil: T0 + 5_000,
        latencyMs: null,
      });
      advance(4_999);
      assert.equal((await healthOf(health, modelId)).cooldownUntil, T0 + 5_000);
      advance(1);
      assert.equal((await healthOf(health, modelId)).cooldownUntil, undefined);
    });

    it("uses defaultCooldownMs for a 429 without Retry-After", async () => {
      const { health, modelId } = setup();
      const events = await health.record(outcome(modelId, "rate_limited"), SETTINGS);
      assert.equal(events[0]!.details.retryAfterMs, null);
      assert.equal((await healthOf(health, modelId)).cooldownUntil, T0 + 30_000);

      const custom = { ...SETTINGS, defaultCooldownMs: 12_000 };
      await health.record(outcome(modelId, "rate_limited"), custom);
      assert.equal((await healthOf(health, modelId, custom)).cooldownUntil, T0 + 12_000);
    });

    it("raises provider.error for 5xx and auth failures at most once per model per minute", async () => {
      const { health, modelId, advance } = setup();
      const quiet = { ...SETTINGS, minCalls: 1_000 };
      const record = (id: string, status: number) =>
        health.record(outcome(id, "error", { status, reason: `status ${status}` }), quiet);

      assert.deepEqual(await record(modelId, 500), [
        {
          event: "provider.error",
          severity: "critical",
          modelId,
          projectId: "project-1",
          details: { modelId, status: 500, reason: "status 500" },
        },
      ]);
      assert.deepEqual(await record(modelId, 503), []);
      assert.deepEqual(await record(modelId, 401), []);
      assert.deepEqual(names(await record(`${modelId}-auth`, 403)), ["provider.error"]);
      assert.deepEqual(names(await record(`${modelId}-auth2`, 401)), ["provider.error"]);
      // Network failures and timeouts (status 0) and other 4xx are not provider.error.
      assert.deepEqual(await record(`${modelId}-net`, 0), []);
      assert.deepEqual(await record(`${modelId}-net`, 404), []);

      advance(59_999);
      assert.deepEqual(await record(modelId, 500), []);
      advance(1);
      assert.deepEqual(names(await record(modelId, 502)), ["provider.error"]);
    });

    it("shares state between replicas: one degraded event, the same snapshot everywhere", async () => {
      const first = setup();
      const second = {
        health: createHealthStore(tracked(counters, touched).store, { now: () => first.clock.now }),
      };
      const { modelId } = first;
      const error = outcome(modelId, "error");
      const events: HealthEvent[] = [];
      events.push(...(await first.health.record(error, SETTINGS)));
      events.push(...(await second.health.record(error, SETTINGS)));
      events.push(...(await first.health.record(error, SETTINGS)));
      events.push(...(await second.health.record(error, SETTINGS)));
      // Both cross the threshold at once: only one claims the degraded marker.
      const racing = await Promise.all([
        first.health.record(error, SETTINGS),
        second.health.record(error, SETTINGS),
      ]);
      events.push(...racing.flat());
      assert.deepEqual(names(events), ["provider.degraded"]);

      await second.health.record(outcome(modelId, "rate_limited", { retryAfterMs: 8_000 }), SETTINGS);
      const seenByFirst = await first.health.snapshot([modelId], SETTINGS);
      const seenBySecond = await second.health.snapshot([modelId], SETTINGS);
      assert.deepEqual(seenByFirst, seenBySecond);
      assert.deepEqual(seenByFirst.get(modelId), {
        errorRate: 1,
        calls: 6,
        circuit: "open",
        openUntil: T0 + 30_000,
        cooldownUntil: T0 + 8_000,
        latencyMs: null,
      });

      // The probe may land on either replica; the other sees the circuit closed.
      first.advance(30_000);
      assert.deepEqual(names(await second.health.record(outcome(modelId, "success"), SETTINGS)), [
        "provider.recovered",
      ]);
      assert.equal((await healthOf(first.health, modelId)).circuit, "closed");
    });

    it("records a success in one round trip (add and get together) and writes the documented keys", async () => {
      const { health, calls, modelId, store } = setup();
      assert.deepEqual(await health.record(outcome(modelId, "success", { latencyMs: 123.6 }), SETTINGS), []);
      assert.deepEqual(calls, ["add", "get"]);
      assert.deepEqual(
        await store.get([`health:${modelId}:${T0}:ok`, `health:${modelId}:${T0}:lat`]),
        [1, 124],
      );
      const ttl = await store.ttlMs(`health:${modelId}:${T0}:ok`);
      assert.ok(ttl !== null && ttl > 0 && ttl <= 70_000, String(ttl));
    });

    it("writes the circuit and degraded keys when degrading", async () => {
      const { health, calls, modelId, store } = setup();
      await recordMany(health, 4, outcome(modelId, "error"));
      calls.length = 0;
      await health.record(outcome(modelId, "error"), SETTINGS);
      assert.deepEqual(calls, ["add", "get", "setValue", "reserve"]);
      assert.equal(await store.getValue(`health:${modelId}:circuit`), String(T0 + 30_000));
      const circuitTtl = await store.ttlMs(`health:${modelId}:circuit`);
      assert.ok(circuitTtl !== null && circuitTtl > 0 && circuitTtl <= 90_000, String(circuitTtl));
      assert.deepEqual(await store.get([`health:${modelId}:degraded`]), [1]);
      const markerTtl = await store.ttlMs(`health:${modelId}:degraded`);
      assert.ok(markerTtl !== null && markerTtl > 90_000 && markerTtl <= 3_600_000, String(markerTtl));
    });

    it("keeps keys under its own keyPrefix", async () => {
      const { health, modelId, store } = setup({ keyPrefix: "hx:" });
      await health.record(outcome(modelId, "error"), SETTINGS);
      assert.deepEqual(await store.get([`hx:${modelId}:${T0}:err`, `health:${modelId}:${T0}:err`]), [1, 0]);
      assert.equal((await healthOf(health, modelId)).calls, 1);
    });

    it("ignores invalid settings overrides instead of failing", async () => {
      const { health, modelId } = setup();
      const broken = { windowMs: -5, bucketMs: 0.5, minCalls: Number.NaN, errorRateThreshold: 7 };
      await recordMany(health, 5, outcome(modelId, "error"), broken);
      const state = (await health.snapshot([modelId], broken)).get(modelId)!;
      assert.equal(state.circuit, "open");
      assert.equal(state.calls, 5);
    });

    it("rejects an outcome without a model id before touching the store", async () => {
      const { health, calls } = setup();
      await assert.rejects(health.record(outcome("", "error"), SETTINGS), TypeError);
      assert.deepEqual(calls, []);
    });

    it("propagates CounterStoreUnavailableError from record and snapshot", async () => {
      const closed = open();
      await closed.close();
      const health = createHealthStore(closed, { now: () => T0 });
      for (const kind of ["success", "error", "rate_limited"] as const) {
        await assert.rejects(health.record(outcome("m", kind), SETTINGS), CounterStoreUnavailableError);
      }
      await assert.rejects(health.snapshot(["m"], SETTINGS), CounterStoreUnavailableError);
    });
  });
}

healthSuite("memory", () => createCounterStore({}));

const redisUrl = process.env.REDIS_URL;
if (redisUrl) {
  // A random prefix per run isolates this file from other runs and from real data on that Redis;
  // every key written is deleted after the suite.
  const keyPrefix = `health-test:${randomUUID()}:`;
  healthSuite("redis", () => createCounterStore({ redisUrl, keyPrefix }));
} else {
  it("health store: redis", { skip: "REDIS_URL is not set; the Redis run is skipped" }, () => {});
}
