/**
 * GET /api/usage on 1,000,000 usage records in PostgreSQL (issue 7 item 3: a month over all
 * projects under 300 ms p95). Steps:
 *   1. (re)create the database `gw_bench_usage` on DATABASE_URL's server and migrate it;
 *   2. seed a month of records (bench/lib/usage-seed.ts) THROUGH usage-writer's storeUsageRows in
 *      batches, so the rollups and end users are made by the real writer code;
 *   3. serve the management API (registerAdminApi on a fastify app, real HTTP on 127.0.0.1), sign
 *      in the first admin (POST /api/setup/first-admin);
 *   4. time GET /api/usage: warm-up, then sequential requests per variant; p50/p95/p99/max. The
 *      "live writes" variant stores one new record in the month before each request (untimed), as
 *      a live gateway does (admin-api caches nothing; the variant keeps the figure honest should a
 *      cache ever come back, and includes the cost of rollup rows just updated).
 *
 *   npm run bench:usage -- [--records 1000000] [--requests 100] [--warmup 10] [--reuse]
 *
 * After seeding, VACUUM ANALYZE (as autovacuum does after bulk inserts): fresh statistics, and the
 * visibility map that lets the sums read of usage_rollups be an index-only scan.
 *
 * --reuse keeps an already seeded `gw_bench_usage` holding --records records (plus the few the
 * "live writes" variant adds per run; skips steps 1 and 2), so the queries can be measured again
 * without the seeding minutes. The database is left in place at the end for EXPLAIN ANALYZE (drop
 * it by hand: DROP DATABASE gw_bench_usage).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createOutbox } from "@gw/accounting";
import { createMemoryBus, ensureProjectStreams } from "@gw/bus";
import { createMemoryCounterStore } from "@gw/counters";
import { createDatabase, type Prisma, type PrismaClient } from "@gw/db";
import { createLogger } from "@gw/logger";
import { type AdminDeps, deriveJwtKey, registerAdminApi } from "@gw/service-admin-api";
import { storeUsageRows } from "@gw/service-usage-writer";
import Fastify from "fastify";
import pg from "pg";
import { SEED_MODELS, SEED_PROJECTS, usageRecords } from "./lib/usage-seed.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "1000000" },
    requests: { type: "string", default: "100" },
    warmup: { type: "string", default: "10" },
    batch: { type: "string", default: "1000" },
    database: { type: "string", default: "gw_bench_usage" },
    reuse: { type: "boolean", default: false },
  },
});
const bounded = (text: string, min: number, max: number) => Math.min(max, Math.max(min, Number(text) || min));
const RECORDS = bounded(values.records, 1_000, 5_000_000);
const REQUESTS = bounded(values.requests, 1, 10_000);
const WARMUP = bounded(values.warmup, 0, 1_000);
const BATCH = bounded(values.batch, 1, 5_000);
const DATABASE = values.database;
if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error("--database: lowercase letters, digits, _");

/** October 2026: 31 days; the month report asks for [Oct 1, Nov 1). */
const MONTH_START = new Date("2026-10-01T00:00:00.000Z");
const MONTH_DAYS = 31;
const MONTH_END = new Date(MONTH_START.getTime() + MONTH_DAYS * 86_400_000);

const adminUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const benchUrl = new URL(adminUrl);
benchUrl.pathname = `/${DATABASE}`;
const logger = createLogger({ name: "bench-usage", level: "silent" });

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function recreateDatabase(): Promise<void> {
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${DATABASE}"`);
  });
}

async function existingRecords(): Promise<number | null> {
  const exists = await admin((client) =>
    client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]).then((r) => r.rowCount === 1),
  );
  if (!exists) return null;
  const client = new pg.Client({ connectionString: benchUrl.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM "usage_records"');
    return Number(rows[0]!.n);
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

async function seed(prisma: PrismaClient): Promise<void> {
  await prisma.project.createMany({
    data: SEED_PROJECTS.map((project) => ({ id: project.id, name: project.slug, slug: project.slug })),
    skipDuplicates: true,
  });
  const startedAt = performance.now();
  let stored = 0;
  let batch: Prisma.UsageRecordCreateManyInput[] = [];
  // Two batches in flight: one in PostgreSQL while the next is generated and aggregated.
  const inFlight = new Set<Promise<void>>();
  const flush = async (rows: Prisma.UsageRecordCreateManyInput[]) => {
    const done = storeUsageRows(prisma, rows).then(({ inserted }) => {
      const before = stored;
      stored += inserted;
      if (Math.floor(stored / 100_000) > Math.floor(before / 100_000)) {
        const seconds = (performance.now() - startedAt) / 1000;
        console.log(
          `  seeded ${stored.toLocaleString("en-US")} records in ${seconds.toFixed(1)} s (${Math.round(stored / seconds)} records/s)`,
        );
      }
    });
    const tracked = done.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= 2) await Promise.race(inFlight);
  };
  for (const record of usageRecords(RECORDS, MONTH_START, MONTH_DAYS)) {
    batch.push(record);
    if (batch.length === BATCH) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await flush(batch);
  await Promise.all(inFlight);
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(
    `seeding: ${stored.toLocaleString("en-US")} records in ${seconds.toFixed(1)} s, ${Math.round(stored / seconds)} records/s (batches of ${BATCH}, 2 in flight)`,
  );
  // Fresh statistics and visibility map, as autovacuum leaves them after bulk inserts in
  // production: the sums read is an index-only scan only on pages marked all-visible.
  const vacuumStart = performance.now();
  const client = new pg.Client({ connectionString: benchUrl.toString() });
  await client.connect();
  await client.query("VACUUM ANALYZE");
  await client.end();
  console.log(
    `VACUUM ANALYZE after seeding (as autovacuum would): ${((performance.now() - vacuumStart) / 1000).toFixed(1)} s`,
  );
}

async function serveAdminApi(prisma: AdminDeps["prisma"]) {
  const bus = createMemoryBus();
  await ensureProjectStreams(bus);
  const secretKey = randomBytes(32);
  const app = Fastify({ logger: false });
  registerAdminApi(app, {
    prisma,
    logger,
    jwtKey: deriveJwtKey(secretKey),
    secretKey,
    counters: createMemoryCounterStore(),
    outbox: createOutbox({ bus, logger }),
    // /api/usage never asks the budget service; any call would fail loudly.
    budget: new Proxy({} as AdminDeps["budget"], {
      get: () => () => Promise.reject(new Error("no budget service in the usage bench")),
    }),
    version: "bench",
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${address}/api`, close: () => app.close().then(() => bus.close()) };
}

async function signIn(api: string): Promise<string> {
  const account = { email: "bench@example.com", password: "a long enough bench password" };
  const setup = await fetch(`${api}/setup/first-admin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(account),
  });
  if (setup.status === 201) return ((await setup.json()) as { token: string }).token;
  const login = await fetch(`${api}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(account),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
  return ((await login.json()) as { token: string }).token;
}

/** Nearest rank over sorted samples. */
function rank(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Variant {
  name: string;
  query: Record<string, string>;
  requests: number;
  /** Run (untimed) before every request, warm-up included. */
  beforeEach?: () => Promise<unknown>;
}

async function measure(api: string, token: string, variant: Variant) {
  const url = `${api}/usage?${new URLSearchParams(variant.query)}`;
  const call = async () => {
    const startedAt = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.text();
    const ms = performance.now() - startedAt;
    if (response.status !== 200) throw new Error(`${variant.name}: ${response.status} ${body.slice(0, 300)}`);
    return { ms, body };
  };
  for (let i = 0; i < WARMUP; i++) {
    await variant.beforeEach?.();
    await call();
  }
  const samples: number[] = [];
  let last = "";
  for (let i = 0; i < variant.requests; i++) {
    await variant.beforeEach?.();
    const { ms, body } = await call();
    samples.push(ms);
    last = body;
  }
  samples.sort((a, b) => a - b);
  const parsed = JSON.parse(last) as {
    summary?: { totalCalls?: number };
    records?: unknown[];
    timeline?: unknown[];
    pagination?: { total?: number };
  };
  return {
    variant: variant.name,
    n: samples.length,
    p50: rank(samples, 0.5),
    p95: rank(samples, 0.95),
    p99: rank(samples, 0.99),
    max: samples.at(-1)!,
    totalCalls: parsed.summary?.totalCalls,
    records: parsed.records?.length,
    timeline: parsed.timeline?.length,
    bytes: last.length,
  };
}

async function main(): Promise<void> {
  console.log(`usage bench: ${RECORDS.toLocaleString("en-US")} records in ${benchUrl.host}/${DATABASE}`);
  const existing = values.reuse ? await existingRecords() : null;
  // Each run adds a record per "live writes" request (about 100): a few runs' worth still reuses.
  const reuse = existing !== null && existing >= RECORDS && existing < RECORDS + 10_000;
  if (values.reuse && !reuse) console.log(`--reuse: found ${existing ?? "no"} records, reseeding`);
  if (!reuse) await recreateDatabase();
  const db = await createDatabase({ url: benchUrl.toString(), poolMax: 4, logger });
  try {
    await db.migrate();
    if (!reuse) await seed(db.prisma);
    const counts = await db.prisma.$queryRaw<
      { records: bigint; rollups: bigint; hourly: bigint; latency: bigint; endUsers: bigint }[]
    >`
      SELECT (SELECT count(*) FROM "usage_records") AS records,
        (SELECT count(*) FROM "usage_rollups") AS rollups,
        (SELECT count(*) FROM "usage_rollups" WHERE "granularity" = 'hour') AS hourly,
        (SELECT count(*) FROM "usage_latency_rollups") AS latency,
        (SELECT count(*) FROM "end_users") AS "endUsers"`;
    const c = counts[0]!;
    console.log(
      `rows: usage_records ${c.records}, usage_rollups ${c.rollups} (hour ${c.hourly}, day ${c.rollups - c.hourly}), usage_latency_rollups ${c.latency}, end_users ${c.endUsers}`,
    );

    const server = await serveAdminApi(db.prisma);
    try {
      const token = await signIn(server.url);
      const probe = await fetch(`${server.url}/usage?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (probe.status === 404) {
        console.log("GET /api/usage is not served yet (404): nothing to measure.");
        return;
      }
      const month = { from: MONTH_START.toISOString(), to: MONTH_END.toISOString() };
      const few = Math.max(10, Math.ceil(REQUESTS / 2));
      // A live gateway stores records all the time: one new record in the month before each
      // request would defeat any cache of the month's aggregates (admin-api keeps none), so this
      // is the honest figure.
      const live = usageRecords(RECORDS, MONTH_START, MONTH_DAYS, Date.now() % 2 ** 31);
      const writeOne = () => {
        const record = live.next().value!;
        return storeUsageRows(db.prisma, [{ ...record, id: `usg_live_${randomUUID()}` }]);
      };
      const variants: Variant[] = [
        { name: "month, all projects", query: month, requests: REQUESTS },
        { name: "month, all projects, live writes", query: month, requests: REQUESTS, beforeEach: writeOne },
        {
          name: "month, project=bench-1",
          query: { ...month, project: SEED_PROJECTS[0]!.slug },
          requests: few,
        },
        {
          name: `month, model=${SEED_MODELS[2]!.id}`,
          query: { ...month, model: SEED_MODELS[2]!.id },
          requests: few,
        },
        { name: "month, outcome=error", query: { ...month, outcome: "error" }, requests: few },
        { name: "month, callType=routing", query: { ...month, callType: "routing" }, requests: few },
        { name: "month, offset=5000", query: { ...month, offset: "5000" }, requests: few },
        {
          name: "36 h, partial hours",
          query: { from: "2026-10-14T10:17:23.000Z", to: "2026-10-15T22:41:05.000Z" },
          requests: few,
        },
      ];
      const load = () =>
        loadavg()
          .map((x) => x.toFixed(2))
          .join(" ");
      console.log(`load average before the queries: ${load()} (${cpus().length} cores)`);
      const results = [];
      for (const variant of variants) results.push(await measure(server.url, token, variant));
      console.log(`load average after: ${load()} (other work on the machine inflates every figure)`);
      console.log(
        `\nGET /api/usage, sequential over one keep-alive connection, after ${WARMUP} warm-up requests (ms)`,
      );
      console.table(
        results.map((r) => ({
          variant: r.variant,
          n: r.n,
          p50: r.p50.toFixed(1),
          p95: r.p95.toFixed(1),
          p99: r.p99.toFixed(1),
          max: r.max.toFixed(1),
          totalCalls: r.totalCalls,
          records: r.records,
          timeline: r.timeline,
          "body KB": (r.bytes / 1024).toFixed(1),
        })),
      );
      const main = results[0]!;
      console.log(
        `month over all projects: p95 ${main.p95.toFixed(1)} ms (target < 300 ms): ${main.p95 < 300 ? "met" : "NOT met"}`,
      );
      const uncached = results[1]!;
      console.log(
        `  with a record written before each request: p95 ${uncached.p95.toFixed(1)} ms: ${uncached.p95 < 300 ? "met" : "NOT met"}`,
      );
    } finally {
      await server.close();
    }
  } finally {
    await db.close();
  }
}

await main();
