import type { PrismaClient, UsageRecord } from "@gw/db";
import { filterWhere, type UsageFilters } from "./filters.js";
import { usd } from "./merge.js";

type ListedRecord = Omit<UsageRecord, "trace" | "tokenId" | "storedAt">;

/**
 * A usage record as the API shows it (SPEC "Usage record"): cost in USD, or null when the model
 * has no price (never a silent $0); timestamps in ISO 8601.
 */
export function toApiRecord(row: ListedRecord) {
  return {
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    projectId: row.projectId,
    projectSlug: row.projectSlug,
    modelId: row.modelId,
    provider: row.provider,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cacheTokens: row.cacheTokens,
    totalTokens: row.totalTokens,
    cost: row.costMicros === null ? null : usd(Number(row.costMicros)),
    durationMs: row.durationMs,
    outcome: row.outcome,
    status: row.status,
    traceId: row.traceId,
    callType: row.callType,
    sessionId: row.sessionId,
    endUserId: row.endUserId,
    tags: row.tags,
    guardrailTriggered: row.guardrailTriggered,
    blockedBy: row.blockedBy,
    piiRedacted: row.piiRedacted,
    endpoint: row.endpoint,
    streamed: row.streamed,
    errorMessage: row.errorMessage,
  };
}

/** Every column but the trace (only the full record carries it) and the internal ones. */
const LISTED = {
  id: true,
  timestamp: true,
  projectId: true,
  projectSlug: true,
  modelId: true,
  provider: true,
  inputTokens: true,
  outputTokens: true,
  cacheTokens: true,
  totalTokens: true,
  costMicros: true,
  durationMs: true,
  outcome: true,
  status: true,
  traceId: true,
  callType: true,
  sessionId: true,
  endUserId: true,
  tags: true,
  guardrailTriggered: true,
  blockedBy: true,
  piiRedacted: true,
  errorMessage: true,
  streamed: true,
  endpoint: true,
} as const;

/**
 * One page of matching records, newest first (id breaks ties, so pages are stable). The range
 * and filters are served by the usage_records indexes on (timestamp), (projectId, timestamp) and
 * (modelId, timestamp).
 */
export async function recordPage(
  prisma: PrismaClient,
  filters: UsageFilters,
  range: { from: Date; to: Date },
  page: { limit: number; offset: number },
) {
  const rows = await prisma.usageRecord.findMany({
    where: filterWhere(filters, range.from, range.to),
    select: LISTED,
    orderBy: [{ timestamp: "desc" }, { id: "desc" }],
    skip: page.offset,
    take: page.limit,
  });
  return rows.map(toApiRecord);
}

/** The full record, with its routing trace; null when there is none with this id. */
export async function fullRecord(prisma: PrismaClient, id: string) {
  const row = await prisma.usageRecord.findUnique({ where: { id } });
  return row ? { ...toApiRecord(row), trace: row.trace } : null;
}

/**
 * The trace of one request: the entries of every record sharing the trace id (the routing
 * model's call and each completion attempt), oldest record first; null when no record has it.
 */
export async function traceEntries(prisma: PrismaClient, traceId: string): Promise<unknown[] | null> {
  const rows = await prisma.usageRecord.findMany({
    where: { traceId },
    select: { trace: true },
    orderBy: [{ timestamp: "asc" }, { id: "asc" }],
  });
  if (rows.length === 0) return null;
  return rows.flatMap((row) => (Array.isArray(row.trace) ? row.trace : []));
}
