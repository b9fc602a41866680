export { type BusEvent, createEventPublisher, type EventPublisher } from "./bus-events.js";
export { publishEvent } from "./events.js";
export { createOutbox, type Outbox, type OutboxOptions } from "./outbox.js";
export { type OutboxEntry, OutboxLog } from "./outbox-log.js";
export { recordUsage, type UsageBase, type UsageFacts } from "./usage-record.js";
