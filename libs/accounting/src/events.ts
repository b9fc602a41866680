import { randomUUID } from "node:crypto";
import { encodeJson, Subjects } from "@gw/bus";
import { NotificationEvent } from "@gw/proto";
import type { Outbox } from "./outbox.js";

/**
 * Publish a notification event (`events.<name>`) through the outbox, like usage records: it
 * survives a bus outage and a restart. `details` must never hold a secret.
 */
export function publishEvent(
  outbox: Outbox,
  event: {
    event: string;
    severity: "info" | "warning" | "critical";
    projectId: string;
    details: Record<string, unknown>;
    at?: number;
  },
): void {
  const message: NotificationEvent = {
    id: randomUUID(),
    event: event.event,
    severity: event.severity,
    timestamp: new Date(event.at ?? Date.now()).toISOString(),
    projectId: event.projectId,
    detailsJson: JSON.stringify(event.details),
  };
  outbox.enqueue({
    id: message.id,
    subject: Subjects.event(message.event),
    data: encodeJson(NotificationEvent.toJSON(message)),
  });
}
