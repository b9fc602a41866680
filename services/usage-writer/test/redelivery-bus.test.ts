/**
 * Through the real consumer: the same UsageRecord published several times (no msgId, so the bus
 * stores and delivers every copy, as after an outbox replay past the dedupe window or a lost ack)
 * is stored and counted once. In-process bus + PGlite always; NATS JetStream (a namespace of its
 * own) + PostgreSQL with two usage-writer replicas on the shared durable when both are configured.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type Bus,
  createMemoryBus,
  createNatsBus,
  encodeJson,
  ensureProjectStreams,
  Streams,
  Subjects,
  type Subscription,
} from "@gw/bus";
import { createLogger } from "@gw/logger";
import { UsageRecord } from "@gw/proto";
import { waitFor } from "@gw/testing";
import { deleteBusNamespace, testBusNamespace } from "../../../test/support/bus-namespace.js";
import { startUsageWriter, USAGE_WRITER_DURABLE } from "../src/consumer.js";
import { storeUsageRows } from "../src/store-rows.js";
import { toUsageRow } from "../src/to-row.js";
import { assertAggregatesExact, snapshot } from "./aggregates.js";
import { backends, type OpenDatabase } from "./databases.js";

const logger = createLogger({ name: "usage-writer-test", level: "silent" });

interface Setup {
  name: string;
  open(): Promise<{ database: OpenDatabase; buses: Bus[]; cleanup(): Promise<void> }>;
}

const setups: Setup[] = [
  {
    name: "in-process bus, PGlite",
    async open() {
      const database = await backends()[0]!.open();
      const bus = createMemoryBus();
      return { database, buses: [bus], cleanup: async () => {} };
    },
  },
];
const postgres = backends().find((backend) => backend.name === "postgres");
const natsUrl = process.env.NATS_URL;
if (postgres && natsUrl) {
  setups.push({
    name: "NATS JetStream, PostgreSQL, two replicas",
    async open() {
      const database = await postgres.open();
      const namespace = testBusNamespace();
      const buses = [
        await createNatsBus({ url: natsUrl, name: "usage-writer-a", namespace }),
        await createNatsBus({ url: natsUrl, name: "usage-writer-b", namespace }),
      ];
      return { database, buses, cleanup: () => deleteBusNamespace(natsUrl, namespace) };
    },
  });
}

for (const setup of setups) {
  describe(`usage-writer redelivery: ${setup.name}`, () => {
    let database: OpenDatabase;
    let buses: Bus[];
    let cleanup: () => Promise<void>;
    const subscriptions: Subscription[] = [];

    before(async () => {
      ({ database, buses, cleanup } = await setup.open());
      for (const bus of buses) await ensureProjectStreams(bus);
      // One writer per bus (replica), each with its own database client where the backend has one.
      for (const bus of buses) {
        const prisma = subscriptions.length === 0 ? database.db.prisma : (await database.replica()).prisma;
        subscriptions.push(await startUsageWriter({ bus, prisma, logger }));
      }
    });
    after(async () => {
      for (const subscription of subscriptions) await subscription.stop();
      for (const bus of buses ?? []) await bus.close();
      await cleanup?.();
      await database?.close();
    });

    it("counts a record published three times once, in records, rollups and end users", async () => {
      const records = Array.from({ length: 40 }, (_, i) => usageRecord(i));
      const publish = (record: UsageRecord, copy: number) =>
        buses[copy % buses.length]!.publish(Subjects.usageRecord, encodeJson(UsageRecord.toJSON(record)));
      // Each record twice at once (likely in one group-commit batch or on two replicas)...
      await Promise.all(records.flatMap((record) => [publish(record, 0), publish(record, 1)]));
      await drained(buses[0]!);
      assert.equal(await database.db.prisma.usageRecord.count(), records.length);
      const stored = await snapshot(database);
      // ...then once more after they were stored (a late redelivery).
      await Promise.all(records.map((record) => publish(record, 0)));
      await drained(buses[0]!);
      assert.deepEqual(await snapshot(database), stored);
      await assertAggregatesExact(database);
      const calls = await database.db.prisma.usageRollup.aggregate({
        where: { granularity: "day" },
        _sum: { calls: true },
      });
      assert.equal(calls._sum.calls, records.length);
      const user = await database.db.prisma.endUser.findUniqueOrThrow({
        where: { projectId_userId: { projectId: "proj_bus", userId: "user_1" } },
      });
      const mine = records.filter((record) => record.endUserId === "user_1");
      assert.equal(user.requests, mine.length);
      assert.equal(
        user.totalCostMicros,
        BigInt(mine.reduce((sum, record) => sum + (record.costMicros ?? 0), 0)),
      );
    });

    it("a record already stored (its ack was lost) and delivered again changes nothing", async () => {
      const record = usageRecord(1000);
      await storeUsageRows(database.db.prisma, [toUsageRow(record)]);
      const stored = await snapshot(database);
      await buses[0]!.publish(Subjects.usageRecord, encodeJson(UsageRecord.toJSON(record)));
      await drained(buses[0]!);
      assert.deepEqual(await snapshot(database), stored);
    });
  });
}

/** Wait until the usage-writer durable has acked everything published to the stream. */
async function drained(bus: Bus): Promise<void> {
  await waitFor(async () => (await bus.pending(Streams.USAGE.name, USAGE_WRITER_DURABLE)) === 0, {
    timeoutMs: 30_000,
    what: "usage-writer to drain the USAGE stream",
  });
}

function usageRecord(i: number): UsageRecord {
  return UsageRecord.fromPartial({
    id: `usg_bus_${String(i).padStart(5, "0")}`,
    timestamp: new Date(Date.parse("2026-11-20T22:30:00.000Z") + i * 7 * 60_000).toISOString(),
    projectId: "proj_bus",
    projectSlug: "bus",
    modelId: i % 5 === 0 ? "" : "model_bus",
    provider: "openai",
    inputTokens: 100 + i,
    outputTokens: 10 + i,
    totalTokens: 110 + 2 * i,
    ...(i % 5 === 0 || i % 7 === 0 ? {} : { costMicros: 1000 + i }),
    durationMs: 90 + i * 37,
    outcome: i % 5 === 0 ? "blocked" : i % 4 === 0 ? "error" : "success",
    status: 200,
    traceId: `trace_bus_${i}`,
    callType: i % 3 === 0 ? "routing" : "completion",
    endUserId: `user_${i % 3}`,
    traceJson: JSON.stringify([{ stage: "route", i }]),
  });
}
