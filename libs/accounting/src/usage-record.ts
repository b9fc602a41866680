import { encodeJson, Subjects } from "@gw/bus";
import { UsageRecord } from "@gw/proto";
import { injectTraceContext } from "@gw/telemetry";
import type { Outbox } from "./outbox.js";

/** What is known of a call once its caller is: the same for every attempt. */
export interface UsageBase {
  traceId: string;
  startedAt: number;
  projectId: string;
  projectSlug: string;
  tokenId: string;
  tags: Record<string, string>;
  sessionId: string;
  endUser: string;
  endpoint: string;
}

/** What a finished (or refused) call contributes to its usage record. */
export interface UsageFacts extends UsageBase {
  attempt: number;
  modelId: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  costMicros: number | null;
  outcome: "success" | "error" | "budget_exceeded" | "timeout" | "blocked";
  status: number;
  trace: unknown[];
  errorMessage: string;
  streamed: boolean;
  /** Record id when it is not `<traceId>-<attempt>` (side calls of a request, e.g. its routing model). */
  recordId?: string;
  /** `completion` (default), `routing` (the llm policy's routing model), `guardrail`. */
  callType?: "completion" | "routing" | "guardrail";
}

/**
 * Build the record and hand it to the outbox. Its id is derived from the trace id and attempt, so
 * a replayed publish is deduped by the bus (`Nats-Msg-Id`) and by the writer (insert on conflict
 * do nothing).
 */
export function recordUsage(outbox: Outbox, facts: UsageFacts): UsageRecord {
  const record: UsageRecord = {
    id: facts.recordId ?? `${facts.traceId}-${facts.attempt}`,
    timestamp: new Date(facts.startedAt).toISOString(),
    projectId: facts.projectId,
    projectSlug: facts.projectSlug,
    tokenId: facts.tokenId,
    modelId: facts.modelId,
    provider: facts.provider,
    inputTokens: facts.inputTokens,
    outputTokens: facts.outputTokens,
    cacheTokens: facts.cacheTokens,
    totalTokens: facts.inputTokens + facts.outputTokens,
    costMicros: facts.costMicros ?? undefined,
    durationMs: Math.max(0, Math.round(Date.now() - facts.startedAt)),
    outcome: facts.outcome,
    status: facts.status,
    traceId: facts.traceId,
    callType: facts.callType ?? "completion",
    sessionId: facts.sessionId,
    endUserId: facts.endUser,
    tags: facts.tags,
    guardrailTriggered: "",
    blockedBy: "",
    piiRedacted: [],
    traceJson: JSON.stringify(facts.trace),
    errorMessage: facts.errorMessage,
    streamed: facts.streamed,
    endpoint: facts.endpoint,
  };
  // The writer continues the request's trace from these headers (W3C traceparent).
  const headers = injectTraceContext({});
  outbox.enqueue({
    id: record.id,
    subject: Subjects.usageRecord,
    data: encodeJson(UsageRecord.toJSON(record)),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  });
  return record;
}
