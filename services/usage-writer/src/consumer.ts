import { type Bus, decodeJson, Streams, Subjects, type Subscription } from "@gw/bus";
import type { Prisma, PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import { UsageRecord } from "@gw/proto";
import { withExtractedContext } from "@gw/telemetry";
import { GroupCommit } from "./group-commit.js";
import { storeUsageRows } from "./store-rows.js";
import { toUsageRow } from "./to-row.js";

export const USAGE_WRITER_DURABLE = "usage-writer";

/**
 * Stores usage records idempotently through `storeUsageRows`: one transaction inserts the rows (a
 * record already stored, a redelivery or a replayed outbox publish, is skipped by ON CONFLICT DO
 * NOTHING) and adds only the rows it inserted to the hour/day rollups and end users, so a
 * redelivery changes nothing. Rows arriving together share one transaction (group commit). The
 * message is acked only after its row is committed; a failed transaction throws, so the bus
 * redelivers it and, after its max deliveries, parks it on the dead-letter subject instead of
 * dropping it.
 */
export async function startUsageWriter(deps: {
  bus: Bus;
  prisma: PrismaClient;
  logger: Logger;
  maxInFlight?: number;
}): Promise<Subscription> {
  const rows = new GroupCommit<Prisma.UsageRecordCreateManyInput>({
    insert: async (data) => {
      await storeUsageRows(deps.prisma, data);
    },
    onBatchFailure: (error, size) =>
      deps.logger.warn({ err: error, size }, "usage batch failed; retrying its rows one by one"),
  });
  return deps.bus.consume(
    {
      stream: Streams.USAGE.name,
      durable: USAGE_WRITER_DURABLE,
      filterSubject: Subjects.usageRecord,
      maxDeliver: 10,
      ackWaitMs: 30_000,
      maxInFlight: deps.maxInFlight ?? 64,
      nakDelayMs: 1000,
    },
    (message) =>
      withExtractedContext(message.headers, async () => {
        const record = UsageRecord.fromJSON(decodeJson(message.data));
        if (!record.id || !record.projectId) {
          // Unusable forever: fail every delivery so it ends on the dead-letter subject, visible.
          throw new Error("usage record without id or projectId");
        }
        await rows.add(toUsageRow(record));
        if (message.deliveryCount > 1)
          deps.logger.info(
            { id: record.id, deliveries: message.deliveryCount },
            "usage record stored after redelivery",
          );
      }),
  );
}
