import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { budgetCounter } from "@gw/budgets";
import { toBudgets } from "@gw/config-store";
import { type CounterStore, createMemoryCounterStore, createRedisCounterStore } from "@gw/counters";
import { createDatabase, type Database } from "@gw/db";
import type { UsageRecord } from "@gw/proto";
import { Redis } from "ioredis";
import { toStoredIntegration } from "../integration-store.js";
import type { ResolvedIntegration } from "../integration-types.js";
import type { MetricSnapshot } from "../samples.js";
import { metricKeys } from "./keys.js";
import { pushIntegration } from "./push-integration.js";
import { readMetricSnapshot } from "./read-snapshot.js";
import { recordUsageMetrics } from "./record-usage.js";

const NOW = Date.parse("2026-11-25T10:30:30.000Z");

function usage(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: randomUUID(),
    timestamp: new Date(NOW - 2_000).toISOString(),
    projectId: "proj_a",
    projectSlug: "alpha",
    tokenId: "tok_1",
    modelId: "gpt-x",
    provider: "openai",
    inputTokens: 10,
    outputTokens: 5,
    cacheTokens: 0,
    totalTokens: 15,
    costMicros: 1_500,
    durationMs: 120,
    outcome: "success",
    status: 200,
    traceId: "t",
    callType: "completion",
    sessionId: "",
    endUserId: "",
    tags: {},
    guardrailTriggered: "",
    blockedBy: "",
    piiRedacted: [],
    traceJson: "[]",
    errorMessage: "",
    streamed: false,
    endpoint: "chat",
    ...overrides,
  };
}

/**
 * The snapshot's samples as `name{labels}` -> value, for readable assertions. Budget ratios come
 * from the projects in the (shared) database: only the budget test looks at them.
 */
function values(snapshot: MetricSnapshot, withBudgets = false): Record<string, number> {
  return Object.fromEntries(
    snapshot.samples
      .filter((sample) => withBudgets || sample.name !== "service_budget_used_ratio")
      .map((sample) => {
        const labels = Object.entries(sample.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(",");
        return [`${sample.name}{${labels}}`, sample.value];
      }),
  );
}

interface StoreCase {
  name: string;
  make(prefix: string): { store: CounterStore; peer: CounterStore };
}

const stores: StoreCase[] = [
  {
    name: "memory",
    make: () => {
      const store = createMemoryCounterStore();
      return { store, peer: store };
    },
  },
];
const redisUrl = process.env.REDIS_URL;
const runPrefix = `metrics-state-test:${randomUUID().slice(0, 8)}:`;
if (redisUrl)
  stores.push({
    name: "redis",
    make: () => ({
      store: createRedisCounterStore({ url: redisUrl, keyPrefix: runPrefix, commandTimeoutMs: 2000 }),
      peer: createRedisCounterStore({ url: redisUrl, keyPrefix: runPrefix, commandTimeoutMs: 2000 }),
    }),
  });

let db: Database;
before(async () => {
  db = await createDatabase();
  await db.migrate();
});
after(async () => {
  await db.close();
  if (!redisUrl) return;
  const admin = new Redis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await admin.scan(cursor, "MATCH", `${runPrefix}*`, "COUNT", 1000);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== "0");
  await admin.quit();
});

for (const storeCase of stores) {
  describe(`metric state (${storeCase.name} counter store)`, () => {
    let store: CounterStore;
    let peer: CounterStore;
    before(() => {
      ({ store, peer } = storeCase.make(""));
    });
    after(async () => {
      await store.close();
      if (peer !== store) await peer.close();
    });
    // Every test its own key prefix: a fresh metric state.
    const fresh = () => ({ keyPrefix: `${randomUUID().slice(0, 8)}:`, now: () => NOW });
    const read = (options: { keyPrefix: string; now: () => number }) =>
      readMetricSnapshot({ counters: store, prisma: db.prisma, ...options });

    it("counts a record once however often it is delivered", async () => {
      const options = fresh();
      const record = usage();
      assert.equal(await recordUsageMetrics(store, record, options), true);
      assert.equal(await recordUsageMetrics(store, record, options), false);
      assert.equal(await recordUsageMetrics(peer, { ...record }, options), false);
      const snapshot = await read(options);
      assert.deepEqual(values(snapshot), {
        "service_requests_total{model=gpt-x,project=alpha}": 1,
        "service_tokens_total{model=gpt-x,project=alpha,type=input}": 10,
        "service_tokens_total{model=gpt-x,project=alpha,type=output}": 5,
        "service_cost_usd_total{model=gpt-x,project=alpha}": 0.0015,
        "service_request_duration_p50_ms{project=alpha}": 120,
        "service_request_duration_p95_ms{project=alpha}": 120,
      });
      assert.equal(snapshot.at.getTime(), NOW);
      assert.ok(snapshot.startedAt.getTime() <= NOW);
    });

    it("counts a record once when replicas race on it", async () => {
      const options = fresh();
      const record = usage({ inputTokens: 3, outputTokens: 4 });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          recordUsageMetrics(i % 2 ? peer : store, { ...record }, options),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
      const got = values(await read(options));
      assert.equal(got["service_requests_total{model=gpt-x,project=alpha}"], 1);
      assert.equal(got["service_tokens_total{model=gpt-x,project=alpha,type=input}"], 3);
    });

    it("labels refusals with model none, keeps unpriced cost unknown, and sums per series", async () => {
      const options = fresh();
      await recordUsageMetrics(store, usage({ costMicros: 2_000_000 }), options);
      await recordUsageMetrics(
        store,
        usage({ costMicros: 500_000, inputTokens: 1, outputTokens: 1 }),
        options,
      );
      // Unpriced model: requests and tokens, no cost series.
      await recordUsageMetrics(store, usage({ modelId: "local", costMicros: undefined }), options);
      // Refused before any model (no candidates): a request, nothing else.
      await recordUsageMetrics(
        store,
        usage({
          modelId: "",
          inputTokens: 0,
          outputTokens: 0,
          costMicros: undefined,
          outcome: "error",
          status: 503,
        }),
        options,
      );
      // Refused by budget with a model chosen: counted for that model, no latency.
      await recordUsageMetrics(
        store,
        usage({
          projectSlug: "beta",
          projectId: "proj_b",
          outcome: "budget_exceeded",
          costMicros: undefined,
        }),
        options,
      );
      const got = values(await read(options));
      assert.deepEqual(got, {
        "service_requests_total{model=gpt-x,project=alpha}": 2,
        "service_requests_total{model=gpt-x,project=beta}": 1,
        "service_requests_total{model=local,project=alpha}": 1,
        "service_requests_total{model=none,project=alpha}": 1,
        "service_tokens_total{model=gpt-x,project=alpha,type=input}": 11,
        "service_tokens_total{model=gpt-x,project=alpha,type=output}": 6,
        "service_tokens_total{model=gpt-x,project=beta,type=input}": 10,
        "service_tokens_total{model=gpt-x,project=beta,type=output}": 5,
        "service_tokens_total{model=local,project=alpha,type=input}": 10,
        "service_tokens_total{model=local,project=alpha,type=output}": 5,
        "service_cost_usd_total{model=gpt-x,project=alpha}": 2.5,
        "service_request_duration_p50_ms{project=alpha}": 120,
        "service_request_duration_p95_ms{project=alpha}": 120,
      });
    });

    it("reads p50 and p95 per project over the last five minutes only", async () => {
      const options = fresh();
      // 100 calls of 1..100 ms finishing in the last minutes, 100 older calls of 5000 ms outside the window.
      for (let ms = 1; ms <= 100; ms++) {
        const finished = NOW - (ms % 4) * 60_000 - 1_000;
        await recordUsageMetrics(
          store,
          usage({ durationMs: ms, timestamp: new Date(finished - ms).toISOString() }),
          options,
        );
        await recordUsageMetrics(
          store,
          usage({ durationMs: 5_000, timestamp: new Date(NOW - 7 * 60_000).toISOString() }),
          options,
        );
      }
      await recordUsageMetrics(store, usage({ projectSlug: "beta", durationMs: 1_234 }), options);
      const got = values(await read(options));
      assert.equal(got["service_request_duration_p50_ms{project=alpha}"], 50);
      assert.equal(got["service_request_duration_p95_ms{project=alpha}"], 95);
      // From 100 ms up, buckets round down by under 1 % (1234 -> 1230).
      assert.equal(got["service_request_duration_p50_ms{project=beta}"], 1_230);
      // Five minutes later the window has moved past all of them.
      const later = values(await read({ ...options, now: () => NOW + 5 * 60_000 }));
      assert.equal(later["service_request_duration_p50_ms{project=alpha}"], undefined);
      assert.equal(later["service_requests_total{model=gpt-x,project=alpha}"], 200);
    });

    it("reports each project's highest budget use as a ratio from the budget counters", async () => {
      const options = fresh();
      const suffix = randomUUID().slice(0, 8);
      const budgets = [
        { metric: "calls", limit: 10, windowType: "period", windowSize: "monthly" },
        { metric: "cost", limit: 2, windowType: "rolling", windowSize: "day" },
      ];
      const half = await db.prisma.project.create({
        data: { id: `proj_h${suffix}`, name: "Half", slug: `half-${suffix}`, budgets },
      });
      const over = await db.prisma.project.create({
        data: { id: `proj_o${suffix}`, name: "Over", slug: `over-${suffix}`, budgets: [budgets[0]!] },
      });
      await db.prisma.project.create({
        data: { id: `proj_n${suffix}`, name: "None", slug: `none-${suffix}` },
      });
      const counterOf = (projectId: string, slug: string, raw: unknown) =>
        budgetCounter(
          { level: "project", scopeId: projectId, name: slug, budget: toBudgets([raw])[0]!, enforced: true },
          NOW,
        );
      const calls = counterOf(half.id, half.slug, budgets[0]);
      const cost = counterOf(half.id, half.slug, budgets[1]);
      const overCalls = counterOf(over.id, over.slug, budgets[0]);
      await store.add(
        [
          { key: calls.key, amount: 5, ttlMs: calls.ttlMs },
          {
            key: cost.key,
            amount: 400_000,
            ttlMs: cost.ttlMs,
            ...(cost.sliding ? { sliding: cost.sliding } : {}),
          },
          { key: overCalls.key, amount: 12, ttlMs: overCalls.ttlMs },
        ],
        { nowMs: NOW },
      );
      try {
        const got = values(await read(options), true);
        assert.equal(got[`service_budget_used_ratio{project=${half.slug}}`], 0.5);
        assert.equal(got[`service_budget_used_ratio{project=${over.slug}}`], 1);
        assert.equal(got[`service_budget_used_ratio{project=none-${suffix}}`], undefined);
      } finally {
        await store.delete([calls.key, cost.key, overCalls.key]);
      }
    });

    describe("pushIntegration", () => {
      const secretKey = randomBytes(32);
      const received: { url: string; body: unknown }[] = [];
      let status = 200;
      const fetchImpl = (async (url: URL | string, init?: RequestInit) => {
        received.push({ url: String(url), body: JSON.parse(String(init?.body)) });
        return new Response(status === 200 ? "ok" : "receiver exploded", { status });
      }) as typeof fetch;
      const logger = { warn: () => {} };

      async function webhook(): Promise<ResolvedIntegration> {
        const integration: ResolvedIntegration = {
          id: `int_${randomUUID().slice(0, 8)}`,
          name: "hook",
          type: "webhook",
          enabled: true,
          settings: { url: "http://receiver.test/hook", headers: {} },
        };
        const stored = toStoredIntegration(integration, secretKey);
        await db.prisma.integration.create({
          data: { id: integration.id, type: "webhook", name: "hook", enabled: true, ...stored },
        });
        return integration;
      }

      it("pushes once per interval across replicas, records the result, and forces on demand", async () => {
        const options = fresh();
        let clock = NOW;
        await recordUsageMetrics(store, usage(), options);
        const integration = await webhook();
        const deps = (counters: CounterStore) => ({
          counters,
          prisma: db.prisma,
          secretKey,
          logger,
          fetchImpl,
          keyPrefix: options.keyPrefix,
          now: () => clock,
        });
        received.length = 0;
        status = 200;
        // Two replicas tick together: one pushes, the other finds the lock or the fresh push.
        const results = await Promise.all([
          pushIntegration(deps(store), integration, { intervalMs: 60_000 }),
          pushIntegration(deps(peer), integration, { intervalMs: 60_000 }),
        ]);
        assert.equal(received.length, 1);
        assert.equal(results.filter((result) => result.skipped).length, 1);
        assert.ok(results.some((result) => result.ok && !result.skipped));
        const row = await db.prisma.integration.findUniqueOrThrow({ where: { id: integration.id } });
        assert.equal(row.lastPushOk, true);
        assert.equal(row.lastPushAt?.getTime(), NOW);

        clock += 30_000;
        assert.equal((await pushIntegration(deps(peer), integration, { intervalMs: 60_000 })).skipped, true);
        assert.equal(received.length, 1);
        const forced = await pushIntegration(deps(peer), integration, { intervalMs: 60_000, force: true });
        assert.equal(forced.ok, true);
        assert.equal(received.length, 2);
        clock += 60_000;
        assert.equal((await pushIntegration(deps(store), integration, { intervalMs: 60_000 })).ok, true);
        assert.equal(received.length, 3);
        // The lock is released after each push.
        assert.equal(await store.getValue(metricKeys(options.keyPrefix).pushLock(integration.id)), null);
      });

      it("records a failed push on the row and does not retry it within the interval", async () => {
        const options = fresh();
        const integration = await webhook();
        const deps = {
          counters: store,
          prisma: db.prisma,
          secretKey,
          logger,
          fetchImpl,
          keyPrefix: options.keyPrefix,
          now: () => NOW,
        };
        received.length = 0;
        status = 500;
        try {
          const result = await pushIntegration(deps, integration, { intervalMs: 60_000 });
          assert.equal(result.ok, false);
          assert.match(result.message, /500/);
          const row = await db.prisma.integration.findUniqueOrThrow({ where: { id: integration.id } });
          assert.equal(row.lastPushOk, false);
          assert.match(row.lastPushMessage ?? "", /HTTP 500/);
          assert.equal(
            (await pushIntegration({ ...deps, counters: peer }, integration, { intervalMs: 60_000 })).skipped,
            true,
          );
          assert.equal(received.length, 1);
        } finally {
          status = 200;
        }
      });
    });
  });
}
