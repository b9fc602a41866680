import { type Bus, decodeJson, Streams, Subjects, type Subscription } from "@gw/bus";
import type { CounterStore } from "@gw/counters";
import type { Logger } from "@gw/logger";
import { recordUsageMetrics } from "@gw/metrics";
import { UsageRecord } from "@gw/proto";
import { withExtractedContext } from "@gw/telemetry";

export const METRICS_EXPORTER_DURABLE = "metrics-exporter";

/**
 * Counts usage records into the shared metric state. Every replica joins one durable consumer, so
 * the stream hands each record to one replica; a record delivered again (redelivery after a lost
 * ack, a replayed outbox publish outside the bus's duplicate window) is recognised by its id in
 * the state (recordUsageMetrics) and counted once. The message is acked once counted; a failure
 * (counter store unreachable) throws, so the bus redelivers it and, after its max deliveries,
 * parks it on the dead-letter subject.
 */
export async function startMetricsConsumer(deps: {
  bus: Bus;
  counters: CounterStore;
  logger: Pick<Logger, "debug">;
  /** Prefix of the metric keys (metricKeyPrefix(BUS_NAMESPACE)). */
  keyPrefix?: string;
  maxInFlight?: number;
  durable?: string;
}): Promise<Subscription> {
  return deps.bus.consume(
    {
      stream: Streams.USAGE.name,
      durable: deps.durable ?? METRICS_EXPORTER_DURABLE,
      filterSubject: Subjects.usageRecord,
      // Ack wait (30 s) and nak delay (1 s) are the bus's defaults.
      maxDeliver: 10,
      maxInFlight: deps.maxInFlight ?? 64,
    },
    (message) =>
      withExtractedContext(message.headers, async () => {
        const record = UsageRecord.fromJSON(decodeJson(message.data));
        // Unusable forever: fail every delivery so it ends on the dead-letter subject, visible.
        if (!record.id) throw new Error("usage record without id");
        const counted = await recordUsageMetrics(deps.counters, record, {
          ...(deps.keyPrefix ? { keyPrefix: deps.keyPrefix } : {}),
        });
        if (!counted)
          deps.logger.debug(
            { id: record.id, deliveries: message.deliveryCount },
            "usage record already counted",
          );
      }),
  );
}
