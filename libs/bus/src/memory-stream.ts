import type { PublishAck, PublishOptions, StreamDefinition, Subscription, WatchHandler } from "./bus.js";
import type { DeadLetter } from "./dead-letter.js";
import type { BusLogger } from "./logger.js";
import { type ConsumerHost, MemoryConsumer } from "./memory-consumer.js";
import type { DedupeEntry, StoredMessage, StreamFiles } from "./memory-store.js";
import { MemoryWatcher } from "./memory-watch.js";
import {
  DEFAULT_DUPLICATE_WINDOW_MS,
  type ResolvedConsumerOptions,
  resolveConsumerOptions,
} from "./options.js";
import { anySubjectMatches } from "./subject-match.js";

/** The header NATS stores a `msgId` in; the memory bus sets it too so handlers see the same. */
const MSG_ID_HEADER = "Nats-Msg-Id";

/** Stores a dead letter synchronously (the bus routes it to the DLQ stream). */
export type DeadLetterSink = ConsumerHost["storeDeadLetter"];

/**
 * One stream of the memory bus: its messages (ordered by sequence), `msgId` dedupe, durable
 * consumers and watchers (which get each message as it is stored, never from the store). Messages
 * every known durable has settled are dropped from memory; with a data dir the stream file is
 * compacted once all of it is settled.
 */
export class MemoryStream implements ConsumerHost {
  /** Insertion order is sequence order, so trimming from the front drops the oldest. */
  private readonly messages = new Map<number, StoredMessage>();
  private readonly dedupe = new Map<string, { seq: number; timestamp: number }>();
  private readonly consumers = new Map<string, MemoryConsumer>();
  private readonly watchers = new Set<MemoryWatcher>();
  private lastStoredSeq = 0;

  constructor(
    public definition: StreamDefinition,
    private readonly files: StreamFiles | undefined,
    private readonly deadLetterSink: DeadLetterSink,
    private readonly logger: BusLogger,
    private readonly compactAfterRecords: number,
  ) {
    if (files) this.restore(files);
  }

  get streamName(): string {
    return this.definition.name;
  }

  lastSeq(): number {
    return this.lastStoredSeq;
  }

  firstSeq(): number {
    for (const seq of this.messages.keys()) return seq;
    return this.lastStoredSeq + 1;
  }

  get(seq: number): StoredMessage | undefined {
    return this.messages.get(seq);
  }

  captures(subject: string): boolean {
    return anySubjectMatches(this.definition.subjects, subject);
  }

  /** Store a message (and persist it) before returning; a `msgId` seen inside the window is not. */
  store(subject: string, data: Uint8Array, options: PublishOptions = {}): PublishAck {
    const now = Date.now();
    this.dropExpired(now);
    const { msgId } = options;
    const seen = msgId === undefined ? undefined : this.dedupe.get(msgId);
    if (seen) return { stream: this.streamName, seq: seen.seq, duplicate: true };
    const headers = { ...options.headers };
    if (msgId !== undefined) headers[MSG_ID_HEADER] = msgId;
    // Copy: the publisher may reuse its buffer after publish resolves.
    const message: StoredMessage = {
      seq: this.lastStoredSeq + 1,
      subject,
      data: data.slice(),
      headers,
      timestamp: now,
    };
    if (msgId !== undefined) message.msgId = msgId;
    this.files?.appendMessage(message);
    this.lastStoredSeq = message.seq;
    this.messages.set(message.seq, message);
    if (msgId !== undefined) this.dedupe.set(msgId, { seq: message.seq, timestamp: now });
    for (const consumer of this.consumers.values()) consumer.schedule();
    for (const watcher of this.watchers) watcher.offer(message);
    return { stream: this.streamName, seq: message.seq, duplicate: false };
  }

  /** A watcher of every message stored from now on (matching `filterSubject`). */
  watch(filterSubject: string | undefined, handler: WatchHandler): Subscription {
    const watcher = new MemoryWatcher(this.streamName, filterSubject, handler, this.logger, (stopped) =>
      this.watchers.delete(stopped),
    );
    this.watchers.add(watcher);
    return watcher;
  }

  /** The durable's consumer, created on first use (and remembered in the data dir). */
  consumer(options: ResolvedConsumerOptions): MemoryConsumer {
    let consumer = this.consumers.get(options.durable);
    if (!consumer) {
      consumer = new MemoryConsumer(this, options.durable, options, this.logger);
      this.consumers.set(options.durable, consumer);
      this.files?.recordDurable(options.durable, options.filterSubject);
    } else {
      if (consumer.filterSubject !== options.filterSubject) {
        this.files?.recordDurable(options.durable, options.filterSubject);
      }
      consumer.config = options;
    }
    return consumer;
  }

  /** Unsettled messages of a durable; every stored message when the durable does not exist yet. */
  pending(durable: string): number {
    const consumer = this.consumers.get(durable);
    return consumer ? consumer.pendingCount(this.messages.values()) : this.messages.size;
  }

  onSettled(durable: string, seq: number, kind: "ack" | "term"): void {
    this.files?.appendSettled(durable, seq, kind);
    this.trimSettled();
  }

  /** Release the stream's files (after every subscription stopped). */
  close(): void {
    this.files?.close();
  }

  storeDeadLetter(letter: DeadLetter): void {
    this.deadLetterSink(letter);
  }

  /** Drop what every durable settled; compact the file when that is everything. */
  private trimSettled(): void {
    let floor = Number.POSITIVE_INFINITY;
    for (const consumer of this.consumers.values()) floor = Math.min(floor, consumer.floor());
    if (floor === Number.POSITIVE_INFINITY) return;
    for (const seq of this.messages.keys()) {
      if (seq > floor) break;
      this.messages.delete(seq);
    }
    // The rewrite carries the live msgIds, so wait for at least as many new records as that: the
    // cost per record stays constant however busy the dedupe window is.
    const worthIt = Math.max(this.compactAfterRecords, this.dedupe.size);
    if (this.files && floor >= this.lastStoredSeq && this.files.recordsSinceCompaction >= worthIt) {
      const durables = [...this.consumers.values()].map((consumer) => ({
        durable: consumer.durable,
        filterSubject: consumer.filterSubject,
      }));
      const dedupe: DedupeEntry[] = [...this.dedupe].map(([id, entry]) => [id, entry.seq, entry.timestamp]);
      this.files.compact(this.lastStoredSeq, dedupe, durables);
    }
  }

  /** Forget `msgId`s older than the window and messages older than `maxAgeMs`. */
  private dropExpired(now: number): void {
    const window = this.definition.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    for (const [id, entry] of this.dedupe) {
      if (now - entry.timestamp < window) break;
      this.dedupe.delete(id);
    }
    const { maxAgeMs } = this.definition;
    if (maxAgeMs === undefined) return;
    for (const [seq, message] of this.messages) {
      if (now - message.timestamp < maxAgeMs) break;
      this.messages.delete(seq);
    }
  }

  private restore(files: StreamFiles): void {
    const snapshot = files.loadStream();
    this.lastStoredSeq = snapshot.lastSeq;
    for (const [id, seq, timestamp] of snapshot.dedupe) this.dedupe.set(id, { seq, timestamp });
    for (const message of snapshot.messages) {
      this.messages.set(message.seq, message);
      if (message.msgId !== undefined)
        this.dedupe.set(message.msgId, { seq: message.seq, timestamp: message.timestamp });
    }
    this.dropExpired(Date.now());
    for (const durable of files.loadDurables()) {
      // Only the filter is persisted (it decides what the durable holds back); the next consume()
      // brings the other settings, defaults until then.
      const { filterSubject } = durable;
      const config = resolveConsumerOptions({
        stream: this.streamName,
        durable: durable.durable,
        filterSubject,
      });
      this.consumers.set(
        durable.durable,
        new MemoryConsumer(this, durable.durable, config, this.logger, durable.settled),
      );
    }
  }
}
