import type { Logger } from "@gw/logger";
import type { AttemptReport, RoutingServiceService } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";

/**
 * Sends each upstream attempt's outcome to routing's shared health, off the request path. Failures
 * (errors, 429s) go at once, since the next request must already avoid the model; successes only
 * refresh error rates and latency, so they are batched (every `flushMs`, or `maxBatch` at a time),
 * which turns one RPC per request into a few per second under load. A lost report only delays
 * health; it never affects the request that produced it.
 */
export interface OutcomeReporter {
  report(outcome: AttemptReport): void;
  /** Send what is pending (shutdown). */
  flush(): Promise<void>;
}

export function createOutcomeReporter(
  routing: AsyncClient<typeof RoutingServiceService>,
  logger: Logger,
  options: { flushMs?: number; maxBatch?: number; deadlineMs?: number } = {},
): OutcomeReporter {
  const flushMs = options.flushMs ?? 200;
  const maxBatch = options.maxBatch ?? 256;
  let pending: AttemptReport[] = [];
  let timer: NodeJS.Timeout | undefined;

  const send = (outcomes: AttemptReport[]): Promise<void> =>
    routing
      .reportOutcomes({ outcomes }, { deadlineMs: options.deadlineMs ?? 2000 })
      .then(() => undefined)
      .catch((error: unknown) =>
        logger.debug({ err: error, count: outcomes.length }, "health report failed"),
      );

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return Promise.resolve();
    const batch = pending;
    pending = [];
    return send(batch);
  };

  return {
    report(outcome) {
      pending.push(outcome);
      if (outcome.kind !== "success" || pending.length >= maxBatch) void flush();
      else timer ??= setTimeout(() => void flush(), flushMs).unref();
    },
    flush,
  };
}
