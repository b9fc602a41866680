/**
 * Budget cost per request: one `Reserve` + `Settle` pair through the BudgetService handlers, called
 * in-process as standalone calls them (`inProcessClient`), on the in-process counter store and, when
 * REDIS_URL is set, on Redis (services/budget/test/harness.ts builds both). Scenarios:
 *   1. no budget: a project without budgets; reserve answers without touching the store and the
 *      settle is skipped (`expiresAtMs === 0`), as ingress does;
 *   2. project budget: one `calls` budget (monthly): one counter;
 *   3. every scope: token limit (extend), two project budgets (cost monthly, calls rolling minute),
 *      a spend-group chain of 2 groups with a limit each, a model limit and the model's monthly
 *      volume (pricing tiers): 7 counters in one atomic step. Its rolling window is first given a
 *      call in each of its 61 one-second buckets, as after a minute of traffic (every reserve and
 *      settle reads them all).
 * Each: warm-up, then N sequential pairs (pair p50/p90/p99/max, reserve and settle p50, µs); then
 * "every scope" with C pairs in flight for S seconds (pairs/s; on Redis also split over two
 * replicas, i.e. two connections in this process; Redis server CPU per pair from INFO). Last, an
 * overshoot check per store: 200 concurrent reserves against a `calls` limit of 50 (20 rounds),
 * and 64 clients reserving a worst case of 2,500 micro-USD and settling 10-100 % of it against a
 * `cost` budget until refused. Redis keys of the run are deleted at the end.
 *
 *   npm run bench:budget -- [--calls 20000] [--concurrency 32] [--seconds 3]
 *   REDIS_URL=redis://127.0.0.1:6379 npm run bench:budget
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { budgetCounter, collectScopes } from "@gw/budgets";
import type { SpendGroupConfig } from "@gw/config-store";
import type { UsageAmounts } from "@gw/proto";
import { Redis } from "ioredis";
import {
  addModel,
  addProject,
  addToken,
  type BudgetClient,
  type BudgetHarness,
  budget,
  reserveRequest,
  type StoreKind,
  startHarness,
  storeKinds,
} from "../services/budget/test/harness.js";
import { percentiles } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "32" },
    seconds: { type: "string", default: "3" },
  },
});
/** A number option within [min, max]; junk falls back to the default. */
const bounded = (raw: string | undefined, fallback: number, min: number, max: number) => {
  const n = Number(raw);
  return Number.isFinite(n) ? Math.min(Math.max(n, min), max) : fallback;
};
const calls = Math.round(bounded(values.calls, 20_000, 100, 1_000_000));
const warmup = Math.min(2000, Math.ceil(calls / 5));
const concurrency = Math.round(bounded(values.concurrency, 32, 1, 1024));
const seconds = bounded(values.seconds, 3, 0.5, 30);

const OVERSHOOT_CALLERS = 200;
const OVERSHOOT_LIMIT = 50;
const OVERSHOOT_ROUNDS = 20;
const COST_CLIENTS = 64;
const COST_WORST_MICROS = 2500;
const COST_LIMIT_USD = 2;
/** Limits no scenario reaches: the measured calls are always admitted. */
const HUGE = 1_000_000_000;

/** What ingress sends: the attempt's worst case, then what the call really used. */
const WORST_CASE: UsageAmounts = { calls: 1, inputTokens: 1200, outputTokens: 500, costMicros: 2500 };
const ACTUAL: UsageAmounts = { calls: 1, inputTokens: 1200, outputTokens: 180, costMicros: 1560 };

interface Subject {
  name: string;
  ids: { projectId: string; tokenId: string; modelId: string };
  /** Counters one reserve holds (budgets of every scope + the model's volume). */
  counters: number;
}

/** Every id a scenario created, so the Redis keys of this run can be found and removed. */

function subjects(h: BudgetHarness): Subject[] {
  const plainModel = addModel(h.config);
  const open = addProject(h.config);
  const openToken = addToken(h.config, open.id);
  const single = addProject(h.config, { budgets: [budget({ limit: HUGE })] });
  const singleToken = addToken(h.config, single.id);

  const org: SpendGroupConfig = {
    id: `sg_bench_org_${single.id}`,
    name: "org",
    limits: [budget({ metric: "cost", limit: HUGE })],
    projectIds: [],
    tokenIds: [],
    parentGroupId: null,
  };
  const team: SpendGroupConfig = {
    ...org,
    id: `sg_bench_team_${single.id}`,
    name: "team",
    limits: [budget({ limit: HUGE, windowSize: "daily" })],
    parentGroupId: org.id,
  };
  h.config.groups.push(org, team);
  const every = addProject(h.config, {
    budgets: [
      budget({ metric: "cost", limit: HUGE }),
      budget({ limit: HUGE, windowType: "rolling", windowSize: "minute" }),
    ],
    spendGroupId: team.id,
  });
  const everyToken = addToken(h.config, every.id, [
    { ...budget({ metric: "total_tokens", limit: HUGE * 1000, windowSize: "daily" }), mode: "extend" },
  ]);
  const tieredModel = addModel(h.config, {
    limits: [budget({ limit: HUGE, windowSize: "hourly" })],
    pricingTiers: [{ fromTokens: 1_000_000, inputPrice: 0.0008, outputPrice: 0.0016 }],
  });

  const countersOf = (projectId: string, tokenId: string, modelId: string) => {
    const model = h.config.models.get(modelId)!;
    const scopes = collectScopes({
      project: h.config.projects.get(projectId)!,
      token: h.config.tokens.get(tokenId)!,
      model,
      groups: h.config.groups,
    });
    return scopes.length + (model.pricingTiers.length > 0 ? 1 : 0);
  };
  return [
    { name: "no budget", ids: { projectId: open.id, tokenId: openToken.id, modelId: plainModel.id } },
    {
      name: "project budget",
      ids: { projectId: single.id, tokenId: singleToken.id, modelId: plainModel.id },
    },
    { name: "every scope", ids: { projectId: every.id, tokenId: everyToken.id, modelId: tieredModel.id } },
  ].map((s) => ({ ...s, counters: countersOf(s.ids.projectId, s.ids.tokenId, s.ids.modelId) }));
}

/** One pair as ingress makes it; timings in µs (settle NaN when nothing was held). */
async function pair(client: BudgetClient, subject: Subject): Promise<[number, number, number]> {
  const request = reserveRequest(subject.ids, WORST_CASE);
  const started = performance.now();
  const answer = await client.reserve(request);
  const reserved = performance.now();
  if (!answer.admitted) throw new Error(`${subject.name}: refused (${answer.message})`);
  if (answer.expiresAtMs === 0) return [(reserved - started) * 1000, (reserved - started) * 1000, Number.NaN];
  const { settled } = await client.settle({ reservationId: request.reservationId, actual: ACTUAL });
  const done = performance.now();
  if (!settled) throw new Error(`${subject.name}: settle found no hold`);
  return [(done - started) * 1000, (reserved - started) * 1000, (done - reserved) * 1000];
}

const us = (value: number, width = 7) => (Number.isNaN(value) ? "—" : value.toFixed(1)).padStart(width);

async function sequential(kind: string, client: BudgetClient, subject: Subject): Promise<void> {
  for (let i = 0; i < warmup; i++) await pair(client, subject);
  const pairs: number[] = [];
  const reserves: number[] = [];
  const settles: number[] = [];
  for (let i = 0; i < calls; i++) {
    const [whole, reserve, settle] = await pair(client, subject);
    pairs.push(whole);
    reserves.push(reserve);
    if (!Number.isNaN(settle)) settles.push(settle);
  }
  const p = percentiles(pairs);
  console.log(
    `| ${kind.padEnd(6)} | ${subject.name.padEnd(14)} | ${String(subject.counters).padStart(8)} | ${us(p.p50)} | ${us(p.p90)} | ${us(p.p99)} | ${us(p.max, 8)} | ${us(percentiles(reserves).p50, 11)} | ${us(percentiles(settles).p50, 10)} |`,
  );
}

/** CPU seconds of the Redis server's main thread (user + system), from INFO. */
async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? Number.NaN);
  return field("used_cpu_user_main_thread") + field("used_cpu_sys_main_thread");
}

/** `concurrency` loops of pairs until the time is up, spread over the clients (replicas). */
async function saturate(
  label: string,
  clients: BudgetClient[],
  subject: Subject,
  redis: Redis | null,
): Promise<void> {
  for (let i = 0; i < 200; i++) await pair(clients[i % clients.length]!, subject);
  const samples: number[] = [];
  const redisBefore = redis ? await redisCpuSeconds(redis) : Number.NaN;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const client = clients[i % clients.length]!;
      while (performance.now() < deadline) samples.push((await pair(client, subject))[0]);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisCpu = redis ? (await redisCpuSeconds(redis)) - redisBefore : Number.NaN;
  const p = percentiles(samples);
  console.log(
    `| ${label.padEnd(20)} | ${String(Math.round(samples.length / elapsed)).padStart(7)} | ${us(p.p50, 8)} | ${us(p.p99, 8)} | ${us((cpu.user + cpu.system) / samples.length, 16)} | ${us((redisCpu * 1e6) / samples.length, 17)} |`,
  );
}

/** 200 reserves at once against a `calls` limit of 50, on a fresh project each round. */
async function overshootCalls(label: string, h: BudgetHarness, clients: BudgetClient[]): Promise<void> {
  const admittedPerRound: number[] = [];
  for (let round = 0; round < OVERSHOOT_ROUNDS; round++) {
    const project = addProject(h.config, { budgets: [budget({ limit: OVERSHOOT_LIMIT })] });
    const requests = Array.from({ length: OVERSHOOT_CALLERS }, () =>
      reserveRequest({ projectId: project.id }, WORST_CASE),
    );
    const answers = await Promise.all(requests.map((r, i) => clients[i % clients.length]!.reserve(r)));
    admittedPerRound.push(answers.filter((a) => a.admitted).length);
    // Settle what was admitted so no hold is left behind.
    await Promise.all(
      answers.map((a, i) =>
        a.admitted
          ? clients[i % clients.length]!.settle({ reservationId: requests[i]!.reservationId, actual: ACTUAL })
          : null,
      ),
    );
  }
  const overshoot = Math.max(...admittedPerRound) - OVERSHOOT_LIMIT;
  const under = admittedPerRound.some((n) => n < OVERSHOOT_LIMIT);
  console.log(`${label.padEnd(20)} admitted per round: ${admittedPerRound.join(" ")}`);
  console.log(
    `${"".padEnd(20)} max overshoot ${overshoot}${overshoot > 0 ? "  FAIL" : "  ok"}${under ? "  (some round admitted fewer than the limit: FAIL)" : ""}`,
  );
}

/** 64 clients: reserve the worst case, settle 10-100 % of it, until refused. */
async function overshootCost(label: string, h: BudgetHarness, clients: BudgetClient[]): Promise<void> {
  const costBudget = budget({ metric: "cost", limit: COST_LIMIT_USD });
  const project = addProject(h.config, { budgets: [costBudget] });
  const limitMicros = COST_LIMIT_USD * 1_000_000;
  let settledMicros = 0;
  let admitted = 0;
  await Promise.all(
    Array.from({ length: COST_CLIENTS }, async (_, i) => {
      const client = clients[i % clients.length]!;
      for (;;) {
        const request = reserveRequest(
          { projectId: project.id },
          { ...WORST_CASE, costMicros: COST_WORST_MICROS },
        );
        if (!(await client.reserve(request)).admitted) return;
        admitted++;
        const costMicros = Math.round(COST_WORST_MICROS * (0.1 + 0.9 * Math.random()));
        const { settled } = await client.settle({
          reservationId: request.reservationId,
          actual: { ...ACTUAL, costMicros },
        });
        if (!settled) throw new Error("cost run: settle found no hold");
        settledMicros += costMicros;
      }
    }),
  );
  const counter = budgetCounter(
    { level: "project", scopeId: project.id, name: project.slug, budget: costBudget, enforced: true },
    Date.now(),
  );
  const [stored] = await h.counters.get([counter.key]);
  const overshoot = settledMicros - limitMicros;
  console.log(
    `| ${label.padEnd(20)} | ${limitMicros.toLocaleString("en-US").padStart(9)} | ${String(admitted).padStart(8)} | ${settledMicros.toLocaleString("en-US").padStart(12)} | ${stored!.toLocaleString("en-US").padStart(12)} | ${overshoot.toLocaleString("en-US").padStart(9)}${overshoot > 0 || stored !== settledMicros ? " FAIL" : "   ok"} | ${((100 * settledMicros) / limitMicros).toFixed(1).padStart(5)} % |`,
  );
}

/** Delete this run's Redis keys (the harness's prefix is random; every key names one of our ids). */
/**
 * A rolling window holds one bucket per second it saw traffic in (61 for `minute`), and every
 * reserve and settle reads them all: give it a call in each bucket of the last minute, as after a
 * minute of steady traffic, instead of measuring a window that is nearly empty.
 */
async function fillRollingWindow(h: BudgetHarness, subject: Subject): Promise<void> {
  const now = Date.now();
  for (let second = 60; second >= 0; second--) {
    h.clock.now = now - second * 1000;
    await pair(h.handlers, subject);
  }
}

const kinds = storeKinds();
const redisUrl = process.env.REDIS_URL;
/** Our own connection: Redis server CPU (INFO) and the clean-up at the end. */
const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : null;
const describeStore = (kind: StoreKind) =>
  kind === "redis" ? `redis (${new URL(redisUrl!).host})` : "memory";
const benchStarted = performance.now();
console.log(
  `Budget reserve + settle, node ${process.version}, stores: ${kinds.map(describeStore).join(", ")}${redisUrl ? "" : " (REDIS_URL not set: Redis skipped)"}`,
);
console.log(
  `${calls} sequential pairs per scenario after ${warmup} warm-up, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)}`,
);

const harnesses = new Map<StoreKind, { h: BudgetHarness; subjects: Subject[]; replicas: BudgetClient[] }>();
try {
  for (const kind of kinds) {
    const h = await startHarness(kind);
    const scenarios = subjects(h);
    // Two replicas only mean something on Redis: in memory they share one store and one event loop.
    const replicas = kind === "redis" ? [h.handlers, await h.replica()] : [h.handlers];
    harnesses.set(kind, { h, subjects: scenarios, replicas });
    await fillRollingWindow(h, scenarios.at(-1)!);
    // The harness's clock stands still (tests move it); a bench runs on real time, so rolling
    // windows move to a new bucket every second and period keys get their real TTLs.
    Object.defineProperty(h.clock, "now", { get: () => Date.now() });
  }

  console.log("\nSequential pairs, µs (settle skipped when nothing is held)\n");
  console.log(
    "| store  | scenario       | counters | pair p50 |     p90 |     p99 |      max | reserve p50 | settle p50 |",
  );
  console.log(
    "| ------ | -------------- | -------: | -------: | ------: | ------: | -------: | ----------: | ---------: |",
  );
  for (const [kind, { h, subjects }] of harnesses)
    for (const subject of subjects) await sequential(kind, h.handlers, subject);

  console.log(`\nConcurrent pairs, every scope: ${concurrency} in flight for ${seconds} s\n`);
  console.log(
    "| store                | pairs/s | pair p50 | pair p99 | node CPU µs/pair | redis CPU µs/pair |",
  );
  console.log(
    "| -------------------- | ------: | -------: | -------: | ---------------: | ----------------: |",
  );
  for (const [kind, { h, subjects, replicas }] of harnesses) {
    const every = subjects.at(-1)!;
    const server = kind === "redis" ? redis : null;
    await saturate(kind === "redis" ? "redis, 1 replica" : kind, [h.handlers], every, server);
    if (replicas.length > 1) await saturate(`${kind}, 2 replicas`, replicas, every, server);
  }

  console.log(
    `\nOvershoot, calls: ${OVERSHOOT_CALLERS} concurrent reserves against a limit of ${OVERSHOOT_LIMIT}, ${OVERSHOOT_ROUNDS} rounds${redis ? " (Redis: split over 2 replicas)" : ""}\n`,
  );
  for (const [kind, { h, replicas }] of harnesses)
    await overshootCalls(replicas.length > 1 ? `${kind} (2 replicas)` : kind, h, replicas);

  console.log(
    `\nOvershoot, cost: ${COST_CLIENTS} clients reserve ${COST_WORST_MICROS} micro-USD, settle 10-100 % of it, until refused (micro-USD)\n`,
  );
  console.log(
    "| store                |     limit | admitted |      settled |      counter | overshoot      |    used |",
  );
  console.log(
    "| -------------------- | --------: | -------: | -----------: | -----------: | -------------: | ------: |",
  );
  for (const [kind, { h, replicas }] of harnesses)
    await overshootCost(replicas.length > 1 ? `${kind} (2 replicas)` : kind, h, replicas);
} finally {
  // Refusals publish `budget.exhausted` after answering: let their flag claims finish first.
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const { h } of harnesses.values()) await h.close();
  // Each harness deletes its own Redis keys on close.
  await redis?.quit();
}
console.log(`Done in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s.`);
