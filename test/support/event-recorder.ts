import { randomUUID } from "node:crypto";
import type { Bus } from "@gw/bus";

export interface RecordedEvent {
  event: string;
  severity: string;
  projectId: string;
  details: Record<string, unknown>;
}

/** Collects the notification events published on the bus from now on (a throwaway durable consumer). */
export async function recordEvents(bus: Bus, filterSubject = "events.>") {
  const events: RecordedEvent[] = [];
  const subscription = await bus.consume(
    { stream: "EVENTS", durable: `test-events-${randomUUID().slice(0, 8)}`, filterSubject },
    async (message) => {
      const raw = JSON.parse(new TextDecoder().decode(message.data)) as {
        event: string;
        severity: string;
        projectId?: string;
        detailsJson?: string;
      };
      events.push({
        event: raw.event,
        severity: raw.severity,
        projectId: raw.projectId ?? "",
        details: raw.detailsJson ? (JSON.parse(raw.detailsJson) as Record<string, unknown>) : {},
      });
    },
  );
  return { events, stop: () => subscription.stop() };
}
