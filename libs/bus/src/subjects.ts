import type { Bus, StreamDefinition } from "./bus.js";
import { DEAD_LETTER_STREAM } from "./dead-letter.js";

/** Dedupe window of every project stream: publishers retry from their outbox within it. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** The project's streams. Each captures one top-level subject namespace. */
export const Streams = {
  /** Usage records, consumed by the usage writer. */
  USAGE: { name: "USAGE", subjects: ["usage.>"], duplicateWindowMs: DUPLICATE_WINDOW_MS },
  /** Domain events (`events.<event name>`). */
  EVENTS: { name: "EVENTS", subjects: ["events.>"], duplicateWindowMs: DUPLICATE_WINDOW_MS },
  /** Audit log entries, consumed by the audit service. */
  AUDIT: { name: "AUDIT", subjects: ["audit.>"], duplicateWindowMs: DUPLICATE_WINDOW_MS },
  /** Configuration change notifications. */
  CONFIG: { name: "CONFIG", subjects: ["config.>"], duplicateWindowMs: DUPLICATE_WINDOW_MS },
  /** Dead letters of every consumer (`dlq.<stream>.<durable>`). */
  DLQ: { ...DEAD_LETTER_STREAM, duplicateWindowMs: DUPLICATE_WINDOW_MS },
} satisfies Record<string, StreamDefinition>;

/** The project's subjects. */
export const Subjects = {
  usageRecord: "usage.record",
  auditEntry: "audit.entry",
  configChanged: "config.changed",
  /** Subject of a domain event, e.g. `events.budget.exceeded`. */
  event: (eventName: string): string => `events.${eventName}`,
} as const;

/** All project streams, in creation order. */
export const PROJECT_STREAMS: readonly StreamDefinition[] = [
  Streams.USAGE,
  Streams.EVENTS,
  Streams.AUDIT,
  Streams.CONFIG,
  Streams.DLQ,
];

/** Create (or update) every project stream. Idempotent; call at service start. */
export async function ensureProjectStreams(bus: Bus): Promise<void> {
  for (const definition of PROJECT_STREAMS) {
    await bus.ensureStream(definition);
  }
}
