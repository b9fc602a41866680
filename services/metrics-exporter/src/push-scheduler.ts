import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import type { Logger } from "@gw/logger";
import { loadEnabledIntegrations, PUSH_TYPES, pushIntegration } from "@gw/metrics";

export interface PushSchedulerDeps {
  prisma: PrismaClient;
  counters: CounterStore;
  secretKey: Buffer;
  logger: Pick<Logger, "warn" | "debug">;
  intervalMs: number;
  keyPrefix?: string;
  allowMetadataUrls?: boolean;
}

export interface PushScheduler {
  /** Stop ticking; resolves once a tick in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, push the metrics to each enabled push-type integration. Runs on every
 * replica: pushIntegration's lock and last-attempt time make each interval pushed once in all. A
 * tick never overlaps the previous one: the next is scheduled when one ends (a slow receiver, up
 * to its push deadline, delays the next tick rather than stacking pushes). The first tick runs
 * at start, so a fresh deployment pushes without waiting a whole interval.
 */
export function startPushScheduler(deps: PushSchedulerDeps): PushScheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function tick(): Promise<void> {
    const integrations = await loadEnabledIntegrations(deps.prisma, deps.secretKey, (invalid) =>
      deps.logger.warn(
        { integration: invalid.id, type: invalid.type, reason: invalid.reason },
        "integration skipped: it cannot be read",
      ),
    );
    await Promise.all(
      integrations
        .filter((integration) => PUSH_TYPES.includes(integration.type))
        .map(async (integration) => {
          const result = await pushIntegration(
            {
              counters: deps.counters,
              prisma: deps.prisma,
              secretKey: deps.secretKey,
              logger: deps.logger,
              ...(deps.keyPrefix ? { keyPrefix: deps.keyPrefix } : {}),
              ...(deps.allowMetadataUrls !== undefined ? { allowMetadataUrls: deps.allowMetadataUrls } : {}),
            },
            integration,
            { intervalMs: deps.intervalMs },
          );
          // The message never carries a secret (sendPush redacts what receivers echo back).
          const fields = { integration: integration.id, type: integration.type, reason: result.message };
          if (!result.ok) deps.logger.warn(fields, "metric push failed");
          else deps.logger.debug(fields, result.skipped ? "metric push skipped" : "metrics pushed");
        }),
    );
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      const started = Date.now();
      running = tick()
        .catch((error: unknown) =>
          deps.logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            "metric push round failed",
          ),
        )
        .finally(() => {
          running = undefined;
          schedule(Math.max(0, deps.intervalMs - (Date.now() - started)));
        });
    }, delayMs);
  }

  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
