import type { Prisma } from "@gw/db";
import type { UsageRecord } from "@gw/proto";

/** Map a bus usage record (proto3 JSON) to its table row. */
export function toUsageRow(record: UsageRecord): Prisma.UsageRecordCreateManyInput {
  let trace: Prisma.InputJsonValue = [];
  try {
    trace = record.traceJson ? (JSON.parse(record.traceJson) as Prisma.InputJsonValue) : [];
  } catch {
    trace = [{ stage: "invalid", reason: "trace was not JSON" }];
  }
  const optional = (value: string) => (value === "" ? null : value);
  return {
    id: record.id,
    timestamp: new Date(record.timestamp),
    projectId: record.projectId,
    projectSlug: record.projectSlug,
    tokenId: optional(record.tokenId),
    modelId: optional(record.modelId),
    provider: optional(record.provider),
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cacheTokens: record.cacheTokens,
    totalTokens: record.totalTokens,
    costMicros: record.costMicros === undefined ? null : BigInt(record.costMicros),
    durationMs: record.durationMs,
    outcome: record.outcome,
    status: record.status,
    traceId: record.traceId,
    callType: record.callType || "completion",
    sessionId: optional(record.sessionId),
    endUserId: optional(record.endUserId),
    tags: record.tags,
    guardrailTriggered: optional(record.guardrailTriggered),
    blockedBy: optional(record.blockedBy),
    piiRedacted: record.piiRedacted,
    trace,
    errorMessage: optional(record.errorMessage),
    streamed: record.streamed,
    endpoint: optional(record.endpoint),
  };
}
