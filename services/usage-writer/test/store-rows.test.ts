/**
 * storeUsageRows on PGlite (always) and PostgreSQL (when DATABASE_URL is set, a throwaway database
 * per suite): records, hour/day rollups and end users are exact, and a redelivered record (in the
 * same batch, a later batch, or stored concurrently by two replicas) changes none of them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Prisma } from "@gw/db";
import { latencyBucket } from "@gw/metrics";
import { seededRandom } from "@gw/testing";
import { INSERTED_COLUMNS } from "../src/records-sql.js";
import { storeUsageRows } from "../src/store-rows.js";
import { assertAggregatesExact, snapshot } from "./aggregates.js";
import { backends, type OpenDatabase, type Row, usageRow } from "./databases.js";

for (const backend of backends()) {
  describe(`storeUsageRows on ${backend.name}`, () => {
    let open: OpenDatabase;
    before(async () => {
      open = await backend.open();
    });
    after(async () => {
      await open?.close();
    });
    const prisma = () => open.db.prisma;
    const clear = async () => {
      await prisma()
        .$executeRaw`TRUNCATE "usage_records", "usage_rollups", "usage_latency_rollups", "end_users"`;
    };

    it("TypeScript latencyBucket equals SQL usage_latency_bucket", async () => {
      const values: number[] = [];
      for (let ms = 0; ms <= 2000; ms++) values.push(ms);
      for (let power = 1; power <= 10_000_000; power *= 10)
        for (const near of [power - 1, power, power + 1, power * 2 - 1, power * 5 + 7]) values.push(near);
      let seed = 42;
      for (let i = 0; i < 3000; i++) {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        values.push(Math.floor((seed / 2 ** 31) ** 3 * 10_000_000));
      }
      const rows = await prisma().$queryRaw<{ ms: bigint; bucket: bigint }[]>`
        SELECT v::bigint AS ms, usage_latency_bucket(v::bigint) AS bucket
        FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb) AS v`;
      assert.equal(rows.length, values.length);
      const mismatches = rows.filter((r) => BigInt(latencyBucket(Number(r.ms))) !== r.bucket);
      assert.deepEqual(mismatches.slice(0, 5), []);
    });

    it("inserts every column as given, with Prisma's defaults for the ones left out", async () => {
      await clear();
      const full = usageRow({
        tokenId: "tok_1",
        sessionId: "sess_1",
        endUserId: "user_1",
        tags: { team: "a" },
        guardrailTriggered: "regex:x",
        blockedBy: "regex:x",
        piiRedacted: ["email", "phone"],
        trace: [{ stage: "route", chosen: "m" }],
        errorMessage: "boom",
        streamed: true,
        endpoint: "/v1/messages",
        costMicros: 9_007_199_254_740_993n,
        timestamp: new Date("2026-11-20T23:59:59.999Z"),
      });
      const bare: Row = {
        id: "usg_bare",
        timestamp: "2026-11-21T00:00:00.000Z",
        projectId: "p",
        projectSlug: "p",
        outcome: "error",
        traceId: "t",
      };
      assert.deepEqual(await storeUsageRows(prisma(), [full, bare]), { inserted: 2 });
      const stored = await prisma().usageRecord.findUniqueOrThrow({ where: { id: full.id } });
      for (const column of INSERTED_COLUMNS) assert.deepEqual(stored[column], full[column], column);
      const defaults = await prisma().usageRecord.findUniqueOrThrow({ where: { id: "usg_bare" } });
      assert.deepEqual(
        {
          ...defaults,
          storedAt: undefined,
        },
        {
          id: "usg_bare",
          timestamp: new Date("2026-11-21T00:00:00.000Z"),
          projectId: "p",
          projectSlug: "p",
          tokenId: null,
          modelId: null,
          provider: null,
          inputTokens: 0,
          outputTokens: 0,
          cacheTokens: 0,
          totalTokens: 0,
          costMicros: null,
          durationMs: 0,
          outcome: "error",
          status: 200,
          traceId: "t",
          callType: "completion",
          sessionId: null,
          endUserId: null,
          tags: {},
          guardrailTriggered: null,
          blockedBy: null,
          piiRedacted: [],
          trace: [],
          errorMessage: null,
          streamed: false,
          endpoint: null,
          storedAt: undefined,
        },
      );
      assert.ok(
        Math.abs(defaults.storedAt.getTime() - Date.now()) < 60_000,
        "storedAt keeps its default, now",
      );
    });

    it("stores text PostgreSQL cannot hold (NUL, lone surrogates) with U+FFFD instead of refusing the record", async () => {
      await clear();
      const row = usageRow({
        endUserId: "user\ud800",
        errorMessage: "bad\u0000byte",
        trace: [{ note: "lone \udc00 surrogate", nul: "a\u0000b" }],
        tags: { team: "x\u0000" },
      });
      assert.deepEqual(await storeUsageRows(prisma(), [row]), { inserted: 1 });
      const stored = await prisma().usageRecord.findUniqueOrThrow({ where: { id: row.id } });
      assert.equal(stored.endUserId, "user\ufffd");
      assert.equal(stored.errorMessage, "bad\ufffdbyte");
      assert.deepEqual(stored.trace, [{ note: "lone \ufffd surrogate", nul: "a\ufffdb" }]);
      assert.deepEqual(stored.tags, { team: "x\ufffd" });
      // A different lone surrogate maps to the same stored id: still one end user, one request.
      const sibling = usageRow({ endUserId: "user\udbff" });
      assert.deepEqual(await storeUsageRows(prisma(), [sibling, row]), { inserted: 1 });
      const users = await prisma().endUser.findMany();
      assert.deepEqual(
        users.map((u) => [u.userId, u.requests]),
        [["user\ufffd", 2]],
      );
      await assertAggregatesExact(open);
    });

    it("names every column of the model in its insert (storedAt keeps its default)", () => {
      const modelColumns = Object.values(Prisma.UsageRecordScalarFieldEnum).filter((c) => c !== "storedAt");
      assert.deepEqual([...INSERTED_COLUMNS].sort(), [...modelColumns].sort());
    });

    it("rollups and latency rollups equal a GROUP BY over usage_records, end users are exact", async () => {
      await clear();
      const rows = mixedRows(600);
      // Three batches in shuffled order: out-of-order records across batches.
      const shuffled = shuffle(rows, 7);
      for (let i = 0; i < shuffled.length; i += 200)
        assert.deepEqual(await storeUsageRows(prisma(), shuffled.slice(i, i + 200)), { inserted: 200 });
      assert.equal(await prisma().usageRecord.count(), rows.length);
      await assertAggregatesExact(open);
      // The dataset covers what it claims to.
      const days = await prisma().usageRollup.count({ where: { granularity: "day" } });
      assert.ok(days > 20, `many day rollups (${days})`);
      assert.ok(await prisma().usageRollup.count({ where: { modelId: "" } }), "records without a model");
      assert.ok(await prisma().usageRollup.count({ where: { unpricedCalls: { gt: 0 } } }), "unpriced calls");
    });

    it("a record redelivered in the same batch, a later batch or by two replicas at once changes nothing", async () => {
      await clear();
      const rows = mixedRows(300);
      assert.deepEqual(await storeUsageRows(prisma(), [...rows.slice(0, 100), ...rows.slice(0, 50)]), {
        inserted: 100,
      });
      const afterFirst = await snapshot(open);
      // A later batch: 100 redeliveries, nothing new.
      assert.deepEqual(await storeUsageRows(prisma(), shuffle(rows.slice(0, 100), 3)), { inserted: 0 });
      assert.deepEqual(await snapshot(open), afterFirst);
      // Redeliveries mixed with new records in one batch: only the new ones count.
      assert.deepEqual(await storeUsageRows(prisma(), rows.slice(50, 200)), { inserted: 100 });
      // Two replicas storing overlapping batches at once (in opposite orders).
      const replica = await open.replica();
      const results = await Promise.all([
        storeUsageRows(prisma(), rows.slice(150, 300)),
        storeUsageRows(replica.prisma, [...rows.slice(150, 300)].reverse()),
      ]);
      assert.equal(results[0]!.inserted + results[1]!.inserted, 100);
      assert.equal(await prisma().usageRecord.count(), 300);
      await assertAggregatesExact(open);
      const done = await snapshot(open);
      assert.deepEqual(await storeUsageRows(replica.prisma, rows), { inserted: 0 });
      assert.deepEqual(await snapshot(open), done);
    });

    it("replicas storing overlapping batches concurrently never deadlock and stay exact", async () => {
      await clear();
      const rows = mixedRows(800, { days: 2, users: 6 });
      const replicas = [prisma(), (await open.replica()).prisma, (await open.replica()).prisma];
      // Every replica gets every record (as after a redelivery storm), in its own order and batching.
      const results = await Promise.all(
        replicas.map(async (client, r) => {
          const order = shuffle(rows, 100 + r);
          let inserted = 0;
          for (let i = 0; i < order.length; i += 80 + r * 30)
            inserted += (await storeUsageRows(client, order.slice(i, i + 80 + r * 30))).inserted;
          return inserted;
        }),
      );
      assert.equal(
        results.reduce((a, b) => a + b, 0),
        rows.length,
      );
      await assertAggregatesExact(open);
    });

    it("an empty batch stores nothing; a failed batch rolls back records and aggregates together", async () => {
      await clear();
      assert.deepEqual(await storeUsageRows(prisma(), []), { inserted: 0 });
      const good = usageRow({ endUserId: "u" });
      // outcome NULL violates NOT NULL: the whole transaction, good row included, is rolled back.
      const bad = usageRow({ outcome: null as unknown as string });
      await assert.rejects(storeUsageRows(prisma(), [good, bad]));
      assert.deepEqual(await snapshot(open), { records: [], rollups: [], latencyRollups: [], endUsers: [] });
      assert.deepEqual(await storeUsageRows(prisma(), [good]), { inserted: 1 });
      await assertAggregatesExact(open);
    });
  });
}

const PROJECTS = ["proj_a", "proj_b", "proj_c"];
const MODELS = ["model_x", "model_y", null];
const OUTCOMES = ["success", "success", "success", "error", "timeout", "budget_exceeded", "blocked"];
const CALL_TYPES = ["completion", "completion", "routing", "guardrail"];

/** A mix over many hours and days (UTC edges included), projects, models, outcomes, call types. */
function mixedRows(count: number, options: { days?: number; users?: number } = {}): Row[] {
  const days = options.days ?? 40;
  const users = options.users ?? 25;
  const random = seededRandom(count * 31 + days);
  const start = Date.parse("2026-10-30T22:00:00.000Z");
  return Array.from({ length: count }, (_, i) => {
    const modelId = MODELS[Math.floor(random() * MODELS.length)]!;
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const input = Math.floor(random() * 2000);
    const output = Math.floor(random() * 800);
    return usageRow({
      id: `usg_mixed_${count}_${String(i).padStart(5, "0")}`,
      timestamp: new Date(start + Math.floor(random() * days * 86_400_000)),
      projectId: pick(PROJECTS),
      modelId,
      outcome: pick(OUTCOMES),
      callType: pick(CALL_TYPES),
      inputTokens: input,
      outputTokens: output,
      cacheTokens: Math.floor(input / 3),
      totalTokens: input + output,
      costMicros: modelId === null || random() < 0.1 ? null : BigInt(Math.floor(random() * 50_000)),
      durationMs: Math.floor(random() ** 3 * 200_000),
      endUserId: random() < 0.7 ? `user_${Math.floor(random() * users)}` : null,
    });
  });
}

function shuffle<T>(list: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
