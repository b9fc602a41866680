import type { Consumer, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import type { BusMessage, MessageHandler, Subscription } from "./bus.js";
import { type DeadLetter, deadLetterFor } from "./dead-letter.js";
import type { BusLogger } from "./logger.js";
import { subjectOut } from "./namespace.js";
import { errorMessage, type ResolvedConsumerOptions } from "./options.js";

/** What a subscription needs from the NATS bus. */
export interface NatsSubscriptionDeps {
  logger: BusLogger;
  /** The bus namespace: stripped from message subjects, so handlers see logical subjects. */
  namespace: string | undefined;
  /** Publish a dead letter; rejects when it was not stored. */
  publishDeadLetter(letter: DeadLetter): Promise<void>;
  /** How long one pull request waits on the server (>= 1000, a client rule). */
  fetchExpiresMs: number;
  /** Bound on waiting for an ack confirmation. */
  ackTimeoutMs: number;
}

/** A fetch that ended this fast with nothing in it is a server refusal, not idleness: back off. */
const MIN_EMPTY_FETCH_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * One `consume()` on NATS: a loop of pull requests, each for exactly the free handler slots, so the
 * server never hands this process more than `maxInFlight` messages at once (a message waiting in a
 * client buffer would burn its ack wait). Server-side `max_deliver` is unlimited; the dead-lettering
 * after `maxDeliver` failures is done here, which also covers a last delivery lost to its ack wait.
 */
export class NatsSubscription implements Subscription {
  private stopped = false;
  private active = 0;
  private current: ConsumerMessages | undefined;
  private readonly slotWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private wakeBackoff: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly consumer: Consumer,
    private readonly options: ResolvedConsumerOptions,
    private readonly handler: MessageHandler,
    private readonly deps: NatsSubscriptionDeps,
  ) {
    this.loop = this.fetchLoop();
  }

  /** Stop pulling, hand back fetched-but-unstarted messages, wait for running handlers. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.stop();
    this.wakeBackoff?.();
    for (const wake of this.slotWaiters.splice(0)) wake();
    await this.loop;
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private async fetchLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      await this.waitForSlot();
      if (this.stopped) break;
      const startedAt = Date.now();
      let received = 0;
      try {
        const batch = await this.consumer.fetch({
          max_messages: this.options.maxInFlight - this.active,
          expires: this.deps.fetchExpiresMs,
        });
        this.current = batch;
        if (this.stopped) batch.stop();
        for await (const msg of batch) {
          received++;
          this.dispatch(msg);
        }
        failures = received === 0 && Date.now() - startedAt < MIN_EMPTY_FETCH_MS ? failures + 1 : 0;
      } catch (error) {
        if (this.stopped) break;
        failures++;
        this.deps.logger.warn(
          { err: error, stream: this.options.stream, durable: this.options.durable, failures },
          "bus fetch failed; retrying",
        );
      } finally {
        this.current = undefined;
      }
      if (failures > 0) await this.backoff(Math.min(MAX_BACKOFF_MS, 50 * 2 ** failures));
    }
  }

  private dispatch(msg: JsMsg): void {
    if (this.stopped) {
      // Fetched while stopping: give it back now rather than after its ack wait.
      msg.nak();
      return;
    }
    this.active++;
    this.process(msg)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, seq: msg.seq }, "bus message processing failed"),
      )
      .finally(() => {
        this.active--;
        this.slotWaiters.shift()?.();
        if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
  }

  private async process(msg: JsMsg): Promise<void> {
    const { maxDeliver, nakDelayMs, ackWaitMs } = this.options;
    const deliveryCount = msg.info.deliveryCount;
    const message = toBusMessage(msg, this.deps.namespace);
    if (deliveryCount > maxDeliver) {
      // The previous (last allowed) delivery ran out of ack wait; that was its failure.
      await this.deadLetter(msg, message, deliveryCount - 1, `ack wait of ${ackWaitMs} ms exceeded`);
      return;
    }
    try {
      await this.handler(message);
    } catch (error) {
      if (deliveryCount >= maxDeliver)
        await this.deadLetter(msg, message, deliveryCount, errorMessage(error));
      else msg.nak(nakDelayMs);
      return;
    }
    try {
      // Confirmed ack: stop() returns only once the server recorded what the handlers did.
      await msg.ackAck({ timeout: this.deps.ackTimeoutMs });
    } catch (error) {
      this.deps.logger.warn(
        { err: error, seq: msg.seq },
        "bus ack not confirmed; message may be redelivered",
      );
    }
  }

  private async deadLetter(
    msg: JsMsg,
    message: BusMessage,
    deliveries: number,
    error: string,
  ): Promise<void> {
    const { stream, durable, nakDelayMs } = this.options;
    try {
      await this.deps.publishDeadLetter(deadLetterFor(message, { stream, durable, deliveries, error }));
    } catch (publishError) {
      // Keep the message: it comes back after the nak delay and dead-letters on that delivery.
      this.deps.logger.error({ err: publishError, stream, durable, seq: message.seq }, "dead letter failed");
      msg.nak(nakDelayMs);
      return;
    }
    this.deps.logger.warn({ stream, durable, seq: message.seq, deliveries, error }, "message dead-lettered");
    // No reason text: `+TERM <reason>` is newer than nats-server 2.9.
    msg.term();
  }

  private waitForSlot(): Promise<void> {
    if (this.active < this.options.maxInFlight) return Promise.resolve();
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The message as handlers see it: the logical subject (`namespace` prefix removed). */
export function toBusMessage(msg: JsMsg, namespace: string | undefined): BusMessage {
  const headers: Record<string, string> = {};
  if (msg.headers) {
    for (const name of msg.headers.keys()) headers[name] = msg.headers.get(name);
  }
  return {
    subject: subjectOut(namespace, msg.subject),
    data: msg.data,
    headers,
    deliveryCount: msg.info.deliveryCount,
    seq: msg.seq,
  };
}
