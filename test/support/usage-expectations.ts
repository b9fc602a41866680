import type { UsageRecord } from "@gw/db";
import { latencyBucket } from "@gw/metrics";
import type { RecordedRequest } from "@gw/testing";

/**
 * What GET /api/usage should answer, computed record by record from the stored usage records,
 * independently of the API's planner and rollups: the expectations of the admin-usage suites.
 */

export type ErrorBody = { error: { message: string; type: string; code: string } };
export type Summary = Record<string, number | null>;
export type Bucket = {
  start: string;
  calls: number;
  cost: number;
  successCalls: number;
  errorCalls: number;
  blockedCalls: number;
  totalTokens: number;
};
export type ApiRecord = Record<string, unknown> & { id: string; timestamp: string; trace?: unknown };
export type Report = {
  range: { from: string; to: string; bucket: string };
  summary: Summary;
  byModel: Record<string, Record<string, number | null>>;
  timeline: Bucket[];
  records: ApiRecord[];
  pagination: { limit: number; offset: number; total: number };
};
export type EndUser = {
  userId: string;
  projectId: string;
  firstSeen: string;
  lastSeen: string;
  requests: number;
  totalTokens: number;
  totalCost: number;
};

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface Filter {
  from: Date;
  to: Date;
  projectIds?: string[];
  modelIds?: string[];
  callType?: string;
  outcome?: string;
}

export function matches(record: UsageRecord, filter: Filter): boolean {
  const at = record.timestamp.getTime();
  if (at < filter.from.getTime() || at >= filter.to.getTime()) return false;
  if (filter.projectIds && !filter.projectIds.includes(record.projectId)) return false;
  if (filter.modelIds && !filter.modelIds.includes(record.modelId ?? "")) return false;
  if (filter.callType && record.callType !== filter.callType) return false;
  if (filter.outcome === "error") return record.outcome !== "success" && record.outcome !== "blocked";
  if (filter.outcome && record.outcome !== filter.outcome) return false;
  return true;
}

export const micros = (list: UsageRecord[]) => list.reduce((sum, r) => sum + Number(r.costMicros ?? 0n), 0);
export const sumOf = (list: UsageRecord[], pick: (r: UsageRecord) => number) =>
  list.reduce((sum, r) => sum + pick(r), 0);
export const avg = (list: UsageRecord[]) =>
  list.length === 0 ? 0 : Math.round((sumOf(list, (r) => r.durationMs) / list.length) * 10) / 10;
/**
 * Nearest-rank p95 of the raw durations, in the histogram's resolution: exact below 100 ms, under
 * 1 % error above (bucketing keeps the order, so the rank picks the same record).
 */
export function p95(list: UsageRecord[]): number | null {
  if (list.length === 0) return null;
  const sorted = list.map((r) => r.durationMs).sort((a, b) => a - b);
  return latencyBucket(sorted[Math.ceil(0.95 * sorted.length) - 1]!);
}
export const isError = (r: UsageRecord) => r.outcome !== "success" && r.outcome !== "blocked";

/** Summary and byModel of the records, computed record by record (not by the API's planner). */
export function expectedReport(all: UsageRecord[], filter: Filter) {
  const hit = all.filter((r) => matches(r, filter));
  const ofType = (type: string) => hit.filter((r) => r.callType === type);
  const summary = {
    totalCost: micros(hit) / 1e6,
    totalCalls: hit.length,
    successCalls: hit.filter((r) => r.outcome === "success").length,
    blockedCalls: hit.filter((r) => r.outcome === "blocked").length,
    errorCalls: hit.filter(isError).length,
    completionCalls: ofType("completion").length,
    completionCost: micros(ofType("completion")) / 1e6,
    routingCalls: ofType("routing").length,
    routingCost: micros(ofType("routing")) / 1e6,
    guardrailCalls: ofType("guardrail").length,
    guardrailCost: micros(ofType("guardrail")) / 1e6,
    inputTokens: sumOf(hit, (r) => r.inputTokens),
    outputTokens: sumOf(hit, (r) => r.outputTokens),
    cacheTokens: sumOf(hit, (r) => r.cacheTokens),
    totalTokens: sumOf(hit, (r) => r.totalTokens),
    unpricedCalls: hit.filter((r) => r.costMicros === null && r.modelId !== null).length,
    avgLatencyMs: avg(hit),
    p95LatencyMs: p95(hit),
  };
  const byModel: Record<string, Record<string, number | null>> = {};
  for (const model of [...new Set(hit.flatMap((r) => (r.modelId ? [r.modelId] : [])))].sort()) {
    const list = hit.filter((r) => r.modelId === model);
    byModel[model] = {
      calls: list.length,
      cost: micros(list) / 1e6,
      success: list.filter((r) => r.outcome === "success").length,
      avgLatencyMs: avg(list),
      p95LatencyMs: p95(list),
      totalTokens: sumOf(list, (r) => r.totalTokens),
      unpricedCalls: list.filter((r) => r.costMicros === null).length,
    };
  }
  const newestFirst = [...hit].sort(
    (a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
  return { summary, byModel, hit, newestFirst };
}

export const upstreamModelOf = (request: RecordedRequest) =>
  (request.body as { model?: string } | undefined)?.model ?? "";
export const lastUserText = (request: RecordedRequest) => {
  const messages = (request.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  return String(messages.at(-1)?.content ?? "");
};

/** The end-user aggregates of the records (what end_users must hold), in USD. */
export function expectedEndUsers(all: UsageRecord[]): EndUser[] {
  const users = new Map<string, EndUser & { micros: number }>();
  for (const r of all) {
    if (!r.endUserId) continue;
    const key = `${r.projectId}/${r.endUserId}`;
    const at = r.timestamp.toISOString();
    const user = users.get(key) ?? {
      userId: r.endUserId,
      projectId: r.projectId,
      firstSeen: at,
      lastSeen: at,
      requests: 0,
      totalTokens: 0,
      totalCost: 0,
      micros: 0,
    };
    if (at < user.firstSeen) user.firstSeen = at;
    if (at > user.lastSeen) user.lastSeen = at;
    if (r.callType === "completion") user.requests++;
    user.totalTokens += r.inputTokens + r.outputTokens;
    user.micros += Number(r.costMicros ?? 0n);
    users.set(key, user);
  }
  return [...users.values()].map(({ micros, ...user }) => ({ ...user, totalCost: micros / 1e6 }));
}
