export type {
  Bus,
  BusMessage,
  ConsumerOptions,
  MessageHandler,
  PublishAck,
  PublishOptions,
  StreamDefinition,
  Subscription,
  WatchHandler,
  WatchOptions,
} from "./bus.js";
export { DeadLetterHeaders, deadLetterSubject } from "./bus.js";
export { decodeJson, encodeJson } from "./codec.js";
export { type CreateBusOptions, createBus } from "./create-bus.js";
export type { BusLogger } from "./logger.js";
export { createMemoryBus, type MemoryBusOptions } from "./memory-bus.js";
export { validateNamespace } from "./namespace.js";
export { createNatsBus, type NatsBusOptions } from "./nats-bus.js";
export { subjectMatches } from "./subject-match.js";
export { ensureProjectStreams, PROJECT_STREAMS, Streams, Subjects } from "./subjects.js";
