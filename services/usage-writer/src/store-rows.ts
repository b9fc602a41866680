import type { PrismaClient } from "@gw/db";
import { dedupeById, endUserDeltas, latencyRollupDeltas, rollupDeltas, type UsageRow } from "./aggregate.js";
import { upsertEndUsers, upsertLatencyRollups, upsertRollups } from "./aggregate-sql.js";
import { insertUsageRecords } from "./records-sql.js";
import { storableRow } from "./text.js";

/**
 * Long enough for a full group-commit batch on a loaded machine; Prisma's default (5 s) would roll
 * back a slow but healthy batch. A failure is retried row by row, then redelivered by the bus.
 */
const TRANSACTION_TIMEOUT_MS = 60_000;
const TRANSACTION_MAX_WAIT_MS = 30_000;

/**
 * Stores usage rows and keeps the hour/day rollups (usage_rollups and the per-model latency
 * histograms of usage_latency_rollups) and end users exact, in ONE transaction:
 *
 * 1. insert the rows with ON CONFLICT DO NOTHING, returning the ids actually inserted: a record
 *    already stored (redelivered, replayed by an outbox, or stored meanwhile by another replica,
 *    whose uncommitted insert makes ours wait, then skip) is not returned;
 * 2. add only those rows to the rollups, latency rollups and end users (in that table order).
 *
 * Because counting happens in the transaction that inserted, a record is counted exactly when it
 * is stored: never twice (redelivery), never lost (a rollback undoes the insert too, and the
 * message is redelivered). Rows are inserted in id order and aggregates upserted in key order, so
 * two replicas storing overlapping batches take their locks in the same order and cannot deadlock.
 */
export async function storeUsageRows(
  prisma: PrismaClient,
  rows: readonly UsageRow[],
): Promise<{ inserted: number }> {
  const unique = dedupeById(rows.map(storableRow)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (unique.length === 0) return { inserted: 0 };
  return prisma.$transaction(
    async (tx) => {
      const insertedIds = await insertUsageRecords(tx, unique);
      const inserted = unique.filter((row) => insertedIds.has(row.id));
      if (inserted.length > 0) {
        await upsertRollups(tx, rollupDeltas(inserted));
        await upsertLatencyRollups(tx, latencyRollupDeltas(inserted));
        await upsertEndUsers(tx, endUserDeltas(inserted));
      }
      return { inserted: inserted.length };
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: TRANSACTION_MAX_WAIT_MS },
  );
}
