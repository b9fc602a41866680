/**
 * The message bus contract. Two implementations pass one contract suite (test/bus.contract.test.ts):
 * NATS JetStream (distributed) and an in-process bus (standalone) with the same semantics.
 *
 * Semantics both must hold:
 * - streams capture subjects; a publish to a captured subject is stored before `publish` resolves;
 * - `msgId` dedupes publishes inside the stream's duplicate window (`Nats-Msg-Id` on NATS);
 * - consumers are durable and pull-based: a consumer with the same `durable` name resumes where it
 *   was; a handler that resolves acks the message; one that throws (or exceeds `ackWaitMs`) gets it
 *   redelivered; after `maxDeliver` failed deliveries the message is published to
 *   `dlq.<stream>.<durable>` (with headers naming the original subject, stream and error) and
 *   terminated, never redelivered again;
 * - at most `maxInFlight` handlers of one consumer run at once;
 * - `Subscription.stop()` stops fetching and waits for in-flight handlers (drain), so a shutdown
 *   loses nothing that was handed to a handler;
 * - `watch()` is the broadcast counterpart of `consume()`: every watcher gets every message stored
 *   after its `watch()` call (no history), each watcher independently, in stream order, at most
 *   once (no acks, no redelivery, no dead letters). For fan-out notifications such as cache
 *   invalidation, where every replica must see each message and a lost one is tolerable.
 */

export interface StreamDefinition {
  /** Stream name, e.g. "USAGE". Upper case by convention. */
  name: string;
  /** Subjects captured, NATS wildcards allowed (`events.>`). */
  subjects: string[];
  /** Window for `msgId` dedupe, ms. Default 120000 (NATS default). */
  duplicateWindowMs?: number;
  /** Drop messages older than this, ms. Default: keep (limits policy). */
  maxAgeMs?: number;
}

export interface PublishOptions {
  /** Idempotency key: a second publish with the same id inside the window is not stored again. */
  msgId?: string;
  headers?: Record<string, string>;
}

export interface PublishAck {
  stream: string;
  seq: number;
  /** True when the message was a duplicate of an earlier `msgId` and not stored again. */
  duplicate: boolean;
}

export interface BusMessage {
  subject: string;
  data: Uint8Array;
  /** The publish headers, plus `Nats-Msg-Id` when published with a `msgId` (both buses). */
  headers: Record<string, string>;
  /** 1 on first delivery. */
  deliveryCount: number;
  /** Stream sequence number. */
  seq: number;
}

export interface ConsumerOptions {
  stream: string;
  /** Durable consumer name; survives restarts and is shared by replicas (work queue semantics). */
  durable: string;
  /** Only messages on this subject (wildcards allowed). Default: all of the stream. */
  filterSubject?: string;
  /** Deliveries before a message goes to the dead-letter subject. Default 5. */
  maxDeliver?: number;
  /** Redeliver when a handler has not finished after this long, ms. Default 30000. */
  ackWaitMs?: number;
  /** Handlers running at once. Default 64. */
  maxInFlight?: number;
  /** Delay before a failed message is redelivered, ms. Default 1000. */
  nakDelayMs?: number;
}

/** Resolve = ack. Throw = redeliver later (dead letter after maxDeliver). */
export type MessageHandler = (message: BusMessage) => Promise<void>;

export interface WatchOptions {
  stream: string;
  /** Only messages on this subject (wildcards allowed). Default: all of the stream. */
  filterSubject?: string;
}

/**
 * Handles one watched message. Awaited before the next message of the same watch is handed over
 * (publish order); a throw (or rejection) is logged and the watch goes on with the next message.
 */
export type WatchHandler = (message: BusMessage) => Promise<void> | void;

export interface Subscription {
  /** Stop fetching, wait for handlers in flight, then return. */
  stop(): Promise<void>;
}

export interface Bus {
  readonly kind: "nats" | "memory";
  /** Create the stream, or update its subjects if it exists. Idempotent. */
  ensureStream(definition: StreamDefinition): Promise<void>;
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<PublishAck>;
  consume(options: ConsumerOptions, handler: MessageHandler): Promise<Subscription>;
  /**
   * Broadcast subscription: `handler` gets every message stored in `stream` (matching
   * `filterSubject`) after this call, whoever else watches or consumes it; N replicas watching get
   * N deliveries of each message. No history, no acks, no redelivery: a throwing handler is logged
   * and the next message follows. `deliveryCount` is always 1. Rejects when the stream does not
   * exist (create it first: `ensureStream`).
   *
   * Delivery is at most once. On NATS (an ordered consumer, see `nats-watch.ts`) the watch survives
   * reconnects and server restarts: it resumes after the last message it handed over, so messages
   * the stream still holds are not lost, but a message can be missed around an outage (e.g. when
   * the stream itself was lost or recreated); callers must tolerate gaps (a cache keeps its TTL).
   * `stop()` ends delivery and waits for the handler running now; `close()` stops every watch. Do
   * not await `stop()` inside the handler (it waits for that very handler).
   */
  watch(options: WatchOptions, handler: WatchHandler): Promise<Subscription>;
  /** Messages stored in the stream and not yet acked by the named durable (for tests and health). */
  pending(stream: string, durable: string): Promise<number>;
  /** Stop every subscription (draining), flush, disconnect. */
  close(): Promise<void>;
}

/** The dead-letter subject of a consumer. */
export function deadLetterSubject(stream: string, durable: string): string {
  return `dlq.${stream}.${durable}`;
}

/** Header names set on dead-lettered messages. */
export const DeadLetterHeaders = {
  originalSubject: "Gw-Dlq-Subject",
  stream: "Gw-Dlq-Stream",
  durable: "Gw-Dlq-Durable",
  deliveries: "Gw-Dlq-Deliveries",
  error: "Gw-Dlq-Error",
} as const;
