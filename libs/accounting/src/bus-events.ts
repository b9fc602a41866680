import { randomUUID } from "node:crypto";
import { type Bus, encodeJson, Subjects } from "@gw/bus";
import type { Logger } from "@gw/logger";
import { NotificationEvent } from "@gw/proto";

export interface RoutingEvent {
  event: string;
  severity: "info" | "warning" | "critical";
  projectId: string;
  details: Record<string, unknown>;
}

export interface EventPublisher {
  publish(event: RoutingEvent): void;
}

/**
 * Routing's notification events (`provider.*`, `routing.no_candidates`) straight onto the bus.
 * Events are advice, not accounting: a publish that fails is logged, never retried at the cost of
 * the request. Repeats of the same event for the same subject within `throttleMs` are dropped so a
 * misconfigured project or a provider outage cannot flood the inbox.
 */
export function createEventPublisher(
  bus: Bus,
  logger: Logger,
  options: { throttleMs?: number; now?: () => number } = {},
): EventPublisher {
  const throttleMs = options.throttleMs ?? 60_000;
  const now = options.now ?? Date.now;
  const last = new Map<string, number>();
  return {
    publish(event) {
      const key = `${event.event}|${event.projectId}|${String(event.details.modelId ?? "")}`;
      const at = now();
      const previous = last.get(key);
      if (previous !== undefined && at - previous < throttleMs && event.event === "routing.no_candidates")
        return;
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
