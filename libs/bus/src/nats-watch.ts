import {
  type Consumer,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import type { Subscription, WatchHandler, WatchOptions } from "./bus.js";
import type { BusLogger } from "./logger.js";
import { streamName, subjectIn } from "./namespace.js";
import { toBusMessage } from "./nats-consumer.js";
import { errorMessage, withTimeout } from "./options.js";

/*
 * `Bus.watch()` on NATS: one JetStream ORDERED consumer per watch.
 *
 * Why not a core subscription (`nc.subscribe` on the mapped subject), which would also see every
 * JetStream publish and is resubscribed by the client after a reconnect? It is blind to the stream:
 * no stream sequence for `BusMessage.seq`, it also gets plain core publishes no stream stored, and
 * whatever was published while this client was disconnected is lost for certain. An ordered
 * consumer reads the stream itself: real sequences, only stored messages, and the client tracks the
 * last stream sequence it delivered, so after a reconnect, a server restart, missed heartbeats or a
 * deleted consumer it recreates the consumer from the next sequence: an outage costs nothing the
 * stream still holds. It is ephemeral (AckPolicy none, memory storage, inactive threshold 5 min set
 * by the client): the server removes it by itself once the process is gone; `stop()` deletes it.
 *
 * Two deliberate departures from the obvious `{ deliver_policy: DeliverPolicy.New, filter_subjects:
 * [filter] }` (checked against @nats-io/jetstream 3.4):
 * - the start is `opt_start_seq` = the stream's last sequence + 1, read just before, not
 *   `DeliverPolicy.New`: the client seeds its cursor from `opt_start_seq`, which `New` leaves at 0,
 *   so a consumer reset before the first message recreated it from sequence 1 and replayed the
 *   whole stream. Both mean "only what is stored from now on";
 * - the filter is passed as a string (`filter_subject`): the `filter_subjects` array needs
 *   nats-server 2.10, and an older server would ignore it and deliver the whole stream.
 */

/** What a watch needs from the NATS bus. */
export interface NatsWatchDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: BusLogger;
  /** The bus namespace: applied to the stream and filter, stripped from message subjects. */
  namespace: string | undefined;
  /** Pull request lifetime; heartbeats (and so the detection of a lost consumer) at half of it. */
  expiresMs: number;
  /** True once the connection is closed for good (no point recreating anything). */
  isClosed(): boolean;
}

const MAX_BACKOFF_MS = 5_000;
/** Bound on deleting the server-side consumer at stop (the server drops it anyway when inactive). */
const DELETE_TIMEOUT_MS = 1_000;

/** Start a watch; rejects when the stream does not exist (or the consumer cannot be created). */
export async function startNatsWatch(
  deps: NatsWatchDeps,
  options: WatchOptions,
  handler: WatchHandler,
): Promise<Subscription> {
  const watch = new NatsWatch(deps, options, handler);
  try {
    await watch.start();
  } catch (error) {
    const where = deps.namespace ? ` (bus namespace "${deps.namespace}")` : "";
    throw new Error(`watch of stream "${options.stream}"${where} failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return watch;
}

class NatsWatch implements Subscription {
  private stopped = false;
  private consumer: Consumer | undefined;
  private messages: ConsumerMessages | undefined;
  /** The next stream sequence to hand over; undefined until the first consumer exists. */
  private nextSeq: number | undefined;
  private loop: Promise<void> = Promise.resolve();
  private wakeBackoff: (() => void) | undefined;
  private readonly serverStream: string;
  private readonly serverFilter: string | undefined;

  constructor(
    private readonly deps: NatsWatchDeps,
    private readonly options: WatchOptions,
    private readonly handler: WatchHandler,
  ) {
    this.serverStream = streamName(deps.namespace, options.stream);
    this.serverFilter =
      options.filterSubject === undefined ? undefined : subjectIn(deps.namespace, options.filterSubject);
  }

  async start(): Promise<void> {
    this.consumer = await this.createConsumer();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.messages?.stop();
      this.wakeBackoff?.();
    }
    await this.loop;
    await this.deleteConsumer();
  }

  /**
   * An ordered consumer starting at `nextSeq`, or at the end of the stream the first time. After a
   * loss of our own (see `run`), the stream's end bounds it: a stream deleted and recreated starts
   * its sequences again, and waiting for the old numbers would skip everything new.
   */
  private async createConsumer(): Promise<Consumer> {
    const info = await this.deps.jsm.streams.info(this.serverStream);
    const end = info.state.last_seq + 1;
    const start = this.nextSeq === undefined ? end : Math.min(this.nextSeq, end);
    this.nextSeq = start;
    return this.deps.js.consumers.get(this.serverStream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: start,
      ...(this.serverFilter === undefined ? {} : { filter_subjects: this.serverFilter }),
    });
  }

  /**
   * Hand over messages one at a time. The client library recovers the consumer by itself
   * (reconnects, gaps, missed heartbeats, a deleted consumer); the outer loop only covers the
   * iterator ending on its own (it gave up, e.g. the stream was gone for long), by creating a new
   * ordered consumer from where this watch was, with backoff.
   */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        this.consumer ??= await this.createConsumer();
        const messages = await this.consumer.consume({ expires: this.deps.expiresMs });
        this.messages = messages;
        if (this.stopped) messages.stop();
        this.logStatus(messages).catch(() => {});
        for await (const msg of messages) {
          if (this.stopped) break;
          failures = 0;
          this.nextSeq = msg.seq + 1;
          await this.deliver(msg);
        }
        if (this.stopped || this.deps.isClosed()) break;
        this.deps.logger.warn(
          { stream: this.options.stream, nextSeq: this.nextSeq },
          "bus watch ended unexpectedly; recreating it",
        );
      } catch (error) {
        if (this.stopped || this.deps.isClosed()) break;
        this.deps.logger.warn(
          { err: error, stream: this.options.stream, nextSeq: this.nextSeq, failures },
          "bus watch failed; recreating it",
        );
      } finally {
        this.messages = undefined;
      }
      // An ordered consumer is consumed once: the next round needs a new one.
      await this.deleteConsumer();
      failures++;
      await this.backoff(Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures));
    }
  }

  private async deliver(msg: JsMsg): Promise<void> {
    const message = toBusMessage(msg, this.deps.namespace);
    try {
      await this.handler(message);
    } catch (error) {
      this.deps.logger.error(
        { err: error, stream: this.options.stream, subject: message.subject, seq: message.seq },
        "bus watch handler failed",
      );
    }
  }

  /** The library's notifications worth a line: trouble with the consumer, and its recovery. */
  private async logStatus(messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      const entry = { stream: this.options.stream, status };
      switch (status.type) {
        case "heartbeats_missed":
        case "consumer_not_found":
        case "consumer_deleted":
        case "stream_not_found":
        case "no_responders":
          this.deps.logger.warn(entry, "bus watch consumer trouble; the client is recovering it");
          break;
        case "reset":
        case "ordered_consumer_recreated":
          this.deps.logger.info(entry, "bus watch consumer recreated");
          break;
        default:
        // Pull requests, heartbeats and expiries: one every few seconds, nothing to say.
      }
    }
  }

  /** Best effort: a consumer left behind is removed by the server after its inactive threshold. */
  private async deleteConsumer(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer || this.deps.isClosed()) return;
    await withTimeout(consumer.delete(), DELETE_TIMEOUT_MS, "delete timed out").catch(() => false);
  }

  private backoff(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
