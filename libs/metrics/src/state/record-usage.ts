import type { CounterStore, HashAddEntry } from "@gw/counters";
import type { UsageRecord } from "@gw/proto";
import { latencyBucket } from "../latency.js";
import { METRICS } from "../samples.js";
import { LATENCY_KEY_TTL_MS, type MetricKeys, metricKeys, minuteStart, SEEN_TTL_MS } from "./keys.js";
import { latencyField, seriesField } from "./series-fields.js";

export interface MetricStateOptions {
  /** Prefix of every metric key (see keys.ts); services pass `metricKeyPrefix(BUS_NAMESPACE)`. */
  keyPrefix?: string;
  /** Clock, ms (tests). */
  now?: () => number;
}

/** Outcomes whose duration is a model's answer time: the latency gauges describe models at work. */
const REACHED_A_MODEL = new Set(["success", "error", "timeout"]);

/**
 * Counts one usage record into the shared metric state, once: the record id is the marker of an
 * atomic `hashAddOnce`, so a redelivered or republished record, or two replicas handed the same
 * record, change nothing the second time. Returns false when the record had already been counted.
 *
 * What counts (docs/METRICS.md "State and replicas"):
 * - every record is a request (`service_requests_total`), refused ones included (model "none"
 *   when no model was chosen): each attempt, routing-model call and refusal is one record;
 * - tokens by type (input, output) and cost in micro-USD (read back in USD); an unpriced call
 *   (costMicros absent) adds no cost: its cost is unknown, not $0;
 * - latency only for calls that reached a model (a model id and outcome success, error or
 *   timeout): a refusal's few milliseconds would drag the percentiles down. The call is put in the
 *   minute it finished (timestamp + duration); calls older than the latency keys' life are skipped.
 */
export async function recordUsageMetrics(
  counters: CounterStore,
  record: UsageRecord,
  options: MetricStateOptions = {},
): Promise<boolean> {
  const keys = metricKeys(options.keyPrefix);
  const now = (options.now ?? Date.now)();
  await ensureEpoch(counters, keys, now);
  const parsed = Date.parse(record.timestamp);
  // A record without a readable time is still a request; it is deduplicated within this hour only.
  const startedAt = Number.isFinite(parsed) ? parsed : now;
  return counters.hashAddOnce(
    { key: keys.seen(utcHour(startedAt)), field: record.id, ttlMs: SEEN_TTL_MS },
    usageEntries(keys, record, startedAt, now),
  );
}

/** The hash increments of one record (exported for tests). */
export function usageEntries(
  keys: MetricKeys,
  record: UsageRecord,
  startedAt: number,
  now: number,
): HashAddEntry[] {
  const project = record.projectSlug || record.projectId || "unknown";
  const model = record.modelId || "none";
  const labels = { project, model };
  const add = (name: string, extra: Record<string, string>, amount: number): HashAddEntry => ({
    key: keys.series,
    field: seriesField(name, { ...extra, ...labels }),
    amount,
  });
  const entries: HashAddEntry[] = [add(METRICS.requests.name, {}, 1)];
  const input = count(record.inputTokens);
  const output = count(record.outputTokens);
  // A refusal before any model consumed no tokens: no empty token series for model "none".
  if (record.modelId || input > 0) entries.push(add(METRICS.tokens.name, { type: "input" }, input));
  if (record.modelId || output > 0) entries.push(add(METRICS.tokens.name, { type: "output" }, output));
  if (record.costMicros !== undefined && record.costMicros !== null)
    entries.push(add(METRICS.cost.name, {}, count(record.costMicros)));
  const finishedAt = startedAt + count(record.durationMs);
  if (record.modelId && REACHED_A_MODEL.has(record.outcome) && finishedAt > now - LATENCY_KEY_TTL_MS) {
    entries.push({
      key: keys.latency(minuteStart(finishedAt)),
      field: latencyField(project, latencyBucket(count(record.durationMs))),
      amount: 1,
      ttlMs: LATENCY_KEY_TTL_MS,
    });
  }
  return entries;
}

/** A record's integer fields as counter amounts: anything but a non-negative safe integer is 0. */
function count(value: number | undefined): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** `2026-11-25T03` */
function utcHour(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

/** The epoch is long-lived but not eternal: it goes with the rest if the state is ever abandoned. */
const EPOCH_TTL_MS = 10 * 365 * 86_400_000;
/** How often a process checks the epoch is still there (it is set once per state, by anyone). */
const EPOCH_RECHECK_MS = 60_000;
const epochChecked = new WeakMap<CounterStore, Map<string, number>>();

/**
 * Sets `metrics:epoch` (when the cumulative series started) the first time anything is counted,
 * before the first count, so the start time every format reports is never after a counted call.
 */
async function ensureEpoch(counters: CounterStore, keys: MetricKeys, now: number): Promise<void> {
  const checked = epochChecked.get(counters) ?? new Map<string, number>();
  epochChecked.set(counters, checked);
  const last = checked.get(keys.epoch);
  if (last !== undefined && now - last < EPOCH_RECHECK_MS) return;
  await counters.hashAddOnce({ key: keys.epoch, field: "set", ttlMs: EPOCH_TTL_MS }, [
    { key: keys.epoch, field: "startedAtMs", amount: now },
  ]);
  checked.set(keys.epoch, now);
}
