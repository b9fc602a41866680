import { randomUUID } from "node:crypto";
import { type Bus, encodeJson, Subjects } from "@gw/bus";
import type { Logger } from "@gw/logger";
import { NotificationEvent } from "@gw/proto";

export interface BusEvent {
  event: string;
  severity: "info" | "warning" | "critical";
  projectId: string;
  details: Record<string, unknown>;
}

export interface EventPublisher {
  publish(event: BusEvent): void;
}

/**
 * Notification events straight onto the bus, for services whose events are advice, not
 * accounting (routing's `provider.*` and `routing.*`, budget's `budget.*`): a publish that fails
 * is logged, never retried at the cost of the request. (Usage records and the events that must
 * survive a restart go through the outbox: `publishEvent`.) Repeats of a `throttled` event for the
 * same project and model within `throttleMs` are dropped, so a misconfigured project or an outage
 * cannot flood the inbox.
 */
export function createEventPublisher(
  bus: Bus,
  logger: Logger,
  options: { throttleMs?: number; throttled?: readonly string[]; now?: () => number } = {},
): EventPublisher {
  const throttleMs = options.throttleMs ?? 60_000;
  const throttled = new Set(options.throttled ?? []);
  const now = options.now ?? Date.now;
  const last = new Map<string, number>();
  return {
    publish(event) {
      const key = `${event.event}|${event.projectId}|${String(event.details.modelId ?? "")}`;
      const at = now();
      const previous = last.get(key);
      if (previous !== undefined && at - previous < throttleMs && throttled.has(event.event)) return;
      if (last.size > 10_000) last.clear();
      last.set(key, at);
      const message: NotificationEvent = {
        id: randomUUID(),
        event: event.event,
        severity: event.severity,
        timestamp: new Date(at).toISOString(),
        projectId: event.projectId,
        detailsJson: JSON.stringify(event.details),
      };
      bus
        .publish(Subjects.event(event.event), encodeJson(NotificationEvent.toJSON(message)), {
          msgId: message.id,
        })
        .catch((error: unknown) => logger.warn({ err: error, event: event.event }, "event publish failed"));
    },
  };
}
