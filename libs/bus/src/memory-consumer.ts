import type { BusMessage, MessageHandler, Subscription } from "./bus.js";
import { type DeadLetter, deadLetterFor } from "./dead-letter.js";
import type { BusLogger } from "./logger.js";
import type { StoredMessage } from "./memory-store.js";
import { MemorySubscription } from "./memory-subscription.js";
import { errorMessage, type ResolvedConsumerOptions } from "./options.js";
import { subjectMatches } from "./subject-match.js";

/** What a consumer needs from its stream and bus; keeps this file free of the stream class. */
export interface ConsumerHost {
  readonly streamName: string;
  lastSeq(): number;
  /** Smallest stored sequence, or lastSeq + 1 when empty. */
  firstSeq(): number;
  get(seq: number): StoredMessage | undefined;
  /** Persist the settlement and let the stream trim/compact. */
  onSettled(durable: string, seq: number, kind: "ack" | "term"): void;
  /** Store a dead letter synchronously; throws when it cannot be stored. */
  storeDeadLetter(letter: DeadLetter): void;
}

interface InFlight {
  token: number;
  timer: NodeJS.Timeout;
}

/**
 * A durable consumer of the memory bus. Its state outlives subscriptions (like a NATS durable) and
 * is shared by every subscription with the same name, which get messages round-robin.
 *
 * State per stream sequence: below `ackFloor` everything is settled or not for us; `settled` holds
 * out-of-order settlements above it; `inFlight` is handed to a handler; `redeliver` waits for its
 * nak delay; everything from `cursor` on was never delivered.
 */
export class MemoryConsumer {
  private ackFloor: number;
  private cursor: number;
  private readonly settled: Set<number>;
  private readonly deliveryCounts = new Map<number, number>();
  private readonly inFlight = new Map<number, InFlight>();
  /** seq -> epoch ms when it may be delivered again. */
  private readonly redeliver = new Map<number, number>();
  private subscribers: MemorySubscription[] = [];
  private roundRobin = 0;
  private nextToken = 0;
  private pumpQueued = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly host: ConsumerHost,
    readonly durable: string,
    public config: ResolvedConsumerOptions,
    private readonly logger: BusLogger,
    settled: Set<number> = new Set(),
  ) {
    this.settled = settled;
    this.ackFloor = host.firstSeq() - 1;
    this.cursor = this.ackFloor + 1;
  }

  get filterSubject(): string | undefined {
    return this.config.filterSubject;
  }

  attach(maxInFlight: number, handler: MessageHandler): Subscription {
    const subscription = new MemorySubscription(maxInFlight, handler, (stopped) => this.detach(stopped));
    this.subscribers.push(subscription);
    this.schedule();
    return subscription;
  }

  private detach(subscription: MemorySubscription): void {
    this.subscribers = this.subscribers.filter((candidate) => candidate !== subscription);
  }

  /** Wake the dispatcher; coalesced so a burst of publishes costs one pass. */
  schedule(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => this.pump());
  }

  /** Highest sequence below which nothing is left for this durable. */
  floor(): number {
    if (this.ackFloor < this.host.firstSeq() - 1) this.ackFloor = this.host.firstSeq() - 1;
    while (this.ackFloor < this.host.lastSeq()) {
      const next = this.ackFloor + 1;
      const message = this.host.get(next);
      if (this.settled.delete(next) || !message || !this.wants(message)) this.ackFloor = next;
      else break;
    }
    return this.ackFloor;
  }

  /** Stored messages this durable has not settled (in flight included). */
  pendingCount(messages: Iterable<StoredMessage>): number {
    const floor = this.floor();
    let count = 0;
    for (const message of messages) {
      if (message.seq > floor && this.wants(message) && !this.settled.has(message.seq)) count++;
    }
    return count;
  }

  private wants(message: StoredMessage): boolean {
    const filter = this.config.filterSubject;
    return filter === undefined || subjectMatches(filter, message.subject);
  }

  private pump(): void {
    this.pumpQueued = false;
    const now = Date.now();
    for (;;) {
      const subscription = this.nextSubscriberWithCapacity();
      if (!subscription) break;
      const seq = this.takeNext(now);
      if (seq === undefined) break;
      this.deliver(subscription, seq);
    }
    this.armWakeTimer(now);
  }

  private nextSubscriberWithCapacity(): MemorySubscription | undefined {
    for (let i = 0; i < this.subscribers.length; i++) {
      const index = (this.roundRobin + i) % this.subscribers.length;
      const subscription = this.subscribers[index];
      if (subscription?.hasCapacity()) {
        this.roundRobin = index + 1;
        return subscription;
      }
    }
    return undefined;
  }

  /** Redeliveries that are due come first (as on NATS), then never-delivered messages. */
  private takeNext(now: number): number | undefined {
    let due: number | undefined;
    for (const [seq, availableAt] of this.redeliver) {
      if (availableAt <= now && (due === undefined || seq < due)) due = seq;
    }
    if (due !== undefined) {
      this.redeliver.delete(due);
      if (this.host.get(due)) return due;
    }
    this.cursor = Math.max(this.cursor, this.floor() + 1);
    while (this.cursor <= this.host.lastSeq()) {
      const seq = this.cursor++;
      const message = this.host.get(seq);
      if (message && this.wants(message) && !this.settled.has(seq)) return seq;
    }
    return undefined;
  }

  private deliver(subscription: MemorySubscription, seq: number): void {
    const stored = this.host.get(seq)!;
    const deliveryCount = (this.deliveryCounts.get(seq) ?? 0) + 1;
    this.deliveryCounts.set(seq, deliveryCount);
    const token = ++this.nextToken;
    const timer = setTimeout(() => this.expire(seq, token), this.config.ackWaitMs);
    // A pending ack wait must not keep a process alive that is otherwise done.
    timer.unref();
    this.inFlight.set(seq, { token, timer });
    const message: BusMessage = {
      subject: stored.subject,
      data: stored.data,
      headers: { ...stored.headers },
      deliveryCount,
      seq,
    };
    subscription.handlerStarted();
    Promise.resolve()
      .then(() => subscription.handler(message))
      .then(
        () => this.settle(seq, token, { ok: true }),
        (error: unknown) => this.settle(seq, token, { ok: false, error }),
      )
      .catch((error: unknown) =>
        this.logger.error({ err: error, seq, durable: this.durable }, "bus settle failed"),
      )
      .finally(() => {
        subscription.handlerFinished();
        this.schedule();
      });
  }

  /** A handler finished. Stale results (its delivery already expired) are ignored. */
  private settle(seq: number, token: number, outcome: { ok: true } | { ok: false; error: unknown }): void {
    const entry = this.inFlight.get(seq);
    if (!entry || entry.token !== token) return;
    clearTimeout(entry.timer);
    this.inFlight.delete(seq);
    if (outcome.ok) {
      this.markSettled(seq, "ack");
      return;
    }
    this.failed(seq, errorMessage(outcome.error), this.config.nakDelayMs);
  }

  /** The ack wait ran out: the delivery counts as failed. */
  private expire(seq: number, token: number): void {
    const entry = this.inFlight.get(seq);
    if (!entry || entry.token !== token) return;
    this.inFlight.delete(seq);
    // As on NATS, an expired message is due again at once (the nak delay is for handler errors).
    this.failed(seq, `ack wait of ${this.config.ackWaitMs} ms exceeded`, 0);
    this.schedule();
  }

  private failed(seq: number, error: string, redeliverDelayMs: number): void {
    const deliveries = this.deliveryCounts.get(seq) ?? 1;
    if (deliveries >= this.config.maxDeliver && this.deadLetter(seq, deliveries, error)) return;
    // Past maxDeliver only a dead letter that could not be stored gets here: retry it after the nak
    // delay rather than at once.
    const delayMs =
      deliveries >= this.config.maxDeliver
        ? Math.max(redeliverDelayMs, this.config.nakDelayMs)
        : redeliverDelayMs;
    this.redeliver.set(seq, Date.now() + delayMs);
  }

  /** Store the dead letter and terminate; false (retry later) when it could not be stored. */
  private deadLetter(seq: number, deliveries: number, error: string): boolean {
    const stored = this.host.get(seq);
    if (!stored) return true;
    const stream = this.host.streamName;
    try {
      this.host.storeDeadLetter(deadLetterFor(stored, { stream, durable: this.durable, deliveries, error }));
    } catch (deadLetterError) {
      this.logger.error({ err: deadLetterError, stream, durable: this.durable, seq }, "dead letter failed");
      return false;
    }
    this.logger.warn({ stream, durable: this.durable, seq, deliveries, error }, "message dead-lettered");
    this.markSettled(seq, "term");
    return true;
  }

  private markSettled(seq: number, kind: "ack" | "term"): void {
    this.deliveryCounts.delete(seq);
    this.redeliver.delete(seq);
    if (seq > this.ackFloor) this.settled.add(seq);
    this.host.onSettled(this.durable, seq, kind);
  }

  /** One timer for the earliest nak delay, only while someone could take the message. */
  private armWakeTimer(now: number): void {
    if (this.subscribers.length === 0 || this.redeliver.size === 0) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const availableAt of this.redeliver.values()) earliest = Math.min(earliest, availableAt);
    if (earliest <= now || earliest >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = earliest;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.schedule();
    }, earliest - now);
    this.wakeTimer.unref();
  }
}
