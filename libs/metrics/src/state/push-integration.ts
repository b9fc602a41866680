import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import { recordPushResult } from "../integration-store.js";
import type { ResolvedIntegration } from "../integration-types.js";
import { PUSH_TIMEOUT_MS, type PushResult, sendPush } from "../push.js";
import type { MetricSnapshot } from "../samples.js";
import { metricKeys } from "./keys.js";
import { readMetricSnapshot } from "./read-snapshot.js";

export interface PushIntegrationDeps {
  counters: CounterStore;
  prisma: PrismaClient;
  /** The integrations' secret key (callers that load integrations pass it along; unused here). */
  secretKey?: Buffer;
  logger: Pick<Logger, "warn">;
  allowMetadataUrls?: boolean;
  now?: () => number;
  fetchImpl?: typeof fetch;
  /** As in recordUsageMetrics. */
  keyPrefix?: string;
  /** One push's deadline (default PUSH_TIMEOUT_MS). */
  timeoutMs?: number;
}

export interface PushIntegrationOptions {
  /** Push even if another replica pushed this interval (the API's test push). */
  force?: boolean;
  /** The scheduler's interval: a push attempted less than about one interval ago is not repeated. */
  intervalMs?: number;
}

export type PushIntegrationResult = PushResult & { skipped?: boolean };

/** What `metrics:pushed:<id>` holds. */
interface PushState {
  /** Last attempt (ok or not), Unix ms: what spaces the pushes of all replicas. */
  attemptAt: number;
  /** The snapshot of the last successful push (Datadog counts are deltas since it). */
  pushed: SerializedSnapshot | null;
}

type SerializedSnapshot = Omit<MetricSnapshot, "at" | "startedAt"> & { at: string; startedAt: string };

/** Long enough to outlive any pause of the exporter; a lost state only costs one delta. */
const STATE_TTL_MS = 7 * 86_400_000;
const LOCK_POLL_MS = 100;

/**
 * Push the current metrics to one integration, coordinated across exporter replicas through the
 * counter store:
 * - a mutex per integration (`metrics:push-lock:<id>`, a counter reserved with limit 1 and a TTL
 *   that outlives one push, deleted after): two replicas never push one integration at once;
 * - under the mutex, a scheduled push is skipped when the last attempt (by any replica) is younger
 *   than the interval minus a slack of min(interval / 4, 5 s): each interval is pushed once however
 *   many replicas tick (a slack of half the interval would let three replicas push every ~2/3 of
 *   it). Failed attempts count too, so a failing receiver is not hit once per replica.
 * - the snapshot of the last successful push is stored with the attempt and handed to sendPush as
 *   `previous`; it is replaced only on success.
 * The outcome is recorded on the integration's row (lastPushAt/Ok/Message); skipped pushes are not.
 * Never throws: an unreachable counter store or database is an `ok: false` result.
 */
export async function pushIntegration(
  deps: PushIntegrationDeps,
  integration: ResolvedIntegration,
  options: PushIntegrationOptions = {},
): Promise<PushIntegrationResult> {
  if (integration.type === "prometheus")
    return { ok: true, message: "pull-based: Prometheus scrapes the metrics endpoint, nothing to push" };
  const now = deps.now ?? Date.now;
  const keys = metricKeys(deps.keyPrefix);
  const timeoutMs = deps.timeoutMs ?? PUSH_TIMEOUT_MS;
  const lockKey = keys.pushLock(integration.id);
  // The lock outlives a push (snapshot read + its deadline) so it is never lost mid-push.
  const lockTtlMs = timeoutMs + 20_000;
  let locked = false;
  const record = (result: PushIntegrationResult) =>
    recordPushResult(deps.prisma, integration.id, result, new Date(now())).catch((error: unknown) =>
      deps.logger.warn(
        { integration: integration.id, err: error instanceof Error ? error.message : String(error) },
        "push result could not be recorded",
      ),
    );
  try {
    locked = await acquire(deps.counters, lockKey, lockTtlMs, options.force ? timeoutMs + 2_000 : 0);
    if (!locked)
      return {
        // A forced push (the API's test) that could not run has not shown the integration works.
        ok: !options.force,
        skipped: true,
        message: "another replica is pushing this integration right now",
      };
    const result = await pushLocked(deps, integration, options, { now, timeoutMs });
    // Recorded under the lock, so a later push's result is never overwritten by this one.
    if (!result.skipped) await record(result);
    return result;
  } catch (error) {
    // The row should say what went wrong (never a secret: these are store errors).
    const result = {
      ok: false,
      message: `metric state unavailable: ${error instanceof Error ? error.message : String(error)}`,
    };
    await record(result);
    return result;
  } finally {
    if (locked) await deps.counters.delete([lockKey]).catch(() => {});
  }
}

/** The push itself, under the integration's lock. */
async function pushLocked(
  deps: PushIntegrationDeps,
  integration: ResolvedIntegration,
  options: PushIntegrationOptions,
  { now, timeoutMs }: { now: () => number; timeoutMs: number },
): Promise<PushIntegrationResult> {
  const stateKey = metricKeys(deps.keyPrefix).pushState(integration.id);
  const state = parseState(await deps.counters.getValue(stateKey));
  const startedAt = now();
  const age = state ? startedAt - state.attemptAt : Number.POSITIVE_INFINITY;
  if (!options.force && options.intervalMs && age < minSpacing(options.intervalMs))
    return { ok: true, skipped: true, message: `pushed ${age} ms ago` };
  const snapshot = await readMetricSnapshot({ ...deps, now });
  const result = await sendPush(integration, snapshot, {
    previous: state?.pushed ? toSnapshot(state.pushed) : null,
    timeoutMs,
    ...(deps.allowMetadataUrls !== undefined ? { allowMetadataUrls: deps.allowMetadataUrls } : {}),
    ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}),
  });
  const next: PushState = {
    attemptAt: startedAt,
    pushed: result.ok ? serialize(snapshot) : (state?.pushed ?? null),
  };
  // The push happened either way: a state that could not be saved costs at most an early next push.
  await deps.counters
    .setValue(stateKey, JSON.stringify(next), STATE_TTL_MS)
    .catch((error: unknown) =>
      deps.logger.warn(
        { integration: integration.id, err: error instanceof Error ? error.message : String(error) },
        "push state could not be saved",
      ),
    );
  return result;
}

function serialize(snapshot: MetricSnapshot): SerializedSnapshot {
  return { ...snapshot, at: snapshot.at.toISOString(), startedAt: snapshot.startedAt.toISOString() };
}

/** The shortest spacing between two scheduled pushes of one integration. */
export function minSpacing(intervalMs: number): number {
  return intervalMs - Math.min(intervalMs / 4, 5_000);
}

/** Reserve the lock; with waitMs > 0, retry until it frees (a forced push waits for a scheduled one). */
async function acquire(counters: CounterStore, key: string, ttlMs: number, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    const reserved = await counters.reserve([{ key, amount: 1, limit: 1, ttlMs }]);
    if (reserved.ok) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

function parseState(raw: string | null): PushState | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as PushState;
    return typeof parsed?.attemptAt === "number" ? parsed : null;
  } catch {
    return null;
  }
}

function toSnapshot(stored: SerializedSnapshot): MetricSnapshot {
  return { ...stored, at: new Date(stored.at), startedAt: new Date(stored.startedAt) };
}
