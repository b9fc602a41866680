import type { UsageRow } from "./aggregate.js";
import type { Tx } from "./aggregate-sql.js";
import { storableJson } from "./text.js";

/**
 * The usage_records insert, in SQL rather than `createManyAndReturn`: Prisma's query layer spent
 * about 0.65 s per 1000 rows building and binding 28 parameters a row (measured, PostgreSQL 15),
 * this statement about 40 ms. The rows travel as ONE jsonb parameter (no 65535-parameter limit),
 * are inserted in the order given (the caller sorts by id, so two replicas inserting overlapping
 * batches wait on each other instead of deadlocking), and RETURNING names the rows actually
 * inserted: a row whose id is already stored, or being stored by another transaction that then
 * commits, is skipped by ON CONFLICT DO NOTHING and not returned.
 *
 * `storedAt` keeps its column default. Every other column is listed here: a test compares this
 * list with the Prisma model, so a new column cannot be silently dropped.
 */
export const INSERTED_COLUMNS = [
  "id",
  "timestamp",
  "projectId",
  "projectSlug",
  "tokenId",
  "modelId",
  "provider",
  "inputTokens",
  "outputTokens",
  "cacheTokens",
  "totalTokens",
  "costMicros",
  "durationMs",
  "outcome",
  "status",
  "traceId",
  "callType",
  "sessionId",
  "endUserId",
  "tags",
  "guardrailTriggered",
  "blockedBy",
  "piiRedacted",
  "trace",
  "errorMessage",
  "streamed",
  "endpoint",
] as const;

/** Rows per statement: bounds the statement's size (traces can be a few KB each). */
const CHUNK = 1_000;

/** Inserts `rows` (sorted by id) and returns the ids actually inserted. */
export async function insertUsageRecords(tx: Tx, rows: readonly UsageRow[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += CHUNK) {
    const json = JSON.stringify(rows.slice(i, i + CHUNK).map(toJsonRow), storableJson);
    const returned = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "usage_records" (
        "id", "timestamp", "projectId", "projectSlug", "tokenId", "modelId", "provider",
        "inputTokens", "outputTokens", "cacheTokens", "totalTokens", "costMicros", "durationMs",
        "outcome", "status", "traceId", "callType", "sessionId", "endUserId", "tags",
        "guardrailTriggered", "blockedBy", "piiRedacted", "trace", "errorMessage", "streamed",
        "endpoint"
      )
      SELECT r."id", r."timestamp", r."projectId", r."projectSlug", r."tokenId", r."modelId",
        r."provider", r."inputTokens", r."outputTokens", r."cacheTokens", r."totalTokens",
        r."costMicros", r."durationMs", r."outcome", r."status", r."traceId", r."callType",
        r."sessionId", r."endUserId", r."tags", r."guardrailTriggered", r."blockedBy",
        r."piiRedacted", r."trace", r."errorMessage", r."streamed", r."endpoint"
      FROM ROWS FROM (jsonb_to_recordset(${json}::jsonb) AS (
        "id" text, "timestamp" timestamp(3), "projectId" text, "projectSlug" text, "tokenId" text,
        "modelId" text, "provider" text, "inputTokens" integer, "outputTokens" integer,
        "cacheTokens" integer, "totalTokens" integer, "costMicros" bigint, "durationMs" integer,
        "outcome" text, "status" integer, "traceId" text, "callType" text, "sessionId" text,
        "endUserId" text, "tags" jsonb, "guardrailTriggered" text, "blockedBy" text,
        "piiRedacted" text[], "trace" jsonb, "errorMessage" text, "streamed" boolean,
        "endpoint" text
      )) WITH ORDINALITY AS r
      ORDER BY r."ordinality"
      ON CONFLICT ("id") DO NOTHING
      RETURNING "id"`;
    for (const { id } of returned) inserted.add(id);
  }
  return inserted;
}

/**
 * A row in the JSON the statement unpacks, with the column defaults Prisma would apply (the insert
 * names every column, so the table's defaults never fire). Bigints travel as strings; a timestamp
 * as ISO UTC, whose zone suffix the cast to `timestamp` drops, leaving the UTC wall time.
 */
function toJsonRow(row: UsageRow): Record<(typeof INSERTED_COLUMNS)[number], unknown> {
  const piiRedacted = Array.isArray(row.piiRedacted) ? row.piiRedacted : (row.piiRedacted?.set ?? []);
  return {
    id: row.id,
    timestamp: new Date(row.timestamp).toISOString(),
    projectId: row.projectId,
    projectSlug: row.projectSlug,
    tokenId: row.tokenId ?? null,
    modelId: row.modelId ?? null,
    provider: row.provider ?? null,
    inputTokens: row.inputTokens ?? 0,
    outputTokens: row.outputTokens ?? 0,
    cacheTokens: row.cacheTokens ?? 0,
    totalTokens: row.totalTokens ?? 0,
    costMicros: row.costMicros === null || row.costMicros === undefined ? null : String(row.costMicros),
    durationMs: row.durationMs ?? 0,
    outcome: row.outcome,
    status: row.status ?? 200,
    traceId: row.traceId,
    callType: row.callType ?? "completion",
    sessionId: row.sessionId ?? null,
    endUserId: row.endUserId ?? null,
    tags: row.tags ?? {},
    guardrailTriggered: row.guardrailTriggered ?? null,
    blockedBy: row.blockedBy ?? null,
    piiRedacted,
    trace: row.trace ?? [],
    errorMessage: row.errorMessage ?? null,
    streamed: row.streamed ?? false,
    endpoint: row.endpoint ?? null,
  };
}
