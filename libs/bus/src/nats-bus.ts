import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { connect, type NatsConnection, nanos, headers as natsHeaders } from "@nats-io/transport-node";
import type {
  Bus,
  ConsumerOptions,
  MessageHandler,
  PublishAck,
  PublishOptions,
  StreamDefinition,
  Subscription,
  WatchHandler,
  WatchOptions,
} from "./bus.js";
import { DEAD_LETTER_STREAM } from "./dead-letter.js";
import { type BusLogger, silentLogger } from "./logger.js";
import { streamName, streamNameOut, subjectIn, validateNamespace } from "./namespace.js";
import { NatsSubscription } from "./nats-consumer.js";
import { startNatsWatch } from "./nats-watch.js";
import {
  assertValidName,
  DEFAULT_DUPLICATE_WINDOW_MS,
  errorMessage,
  resolveConsumerOptions,
  withTimeout,
} from "./options.js";

/** nats-server's JSStreamNameExistErr: the stream exists with another configuration. */
const STREAM_NAME_IN_USE = 10058;

export interface NatsBusOptions {
  /** Server URL(s), comma separated, e.g. `nats://127.0.0.1:4222`. */
  url: string;
  /** Connection name shown by the server (service name). */
  name: string;
  logger?: BusLogger;
  /** A publish (or ack confirmation) not answered within this rejects. Default 5000. */
  publishTimeoutMs?: number;
  /**
   * How long one pull request waits on the server. Default 5000, at least 1000. Watches use it too:
   * their heartbeats come every half of it, so a lost watch consumer is noticed within about this.
   */
  fetchExpiresMs?: number;
  /**
   * Isolates this deployment on a shared server: with `ns`, every stream is `${ns}_${name}` on the
   * server (the dead-letter stream too) and every subject `${ns}.${subject}` (stream subjects,
   * publishes, consumer filters, dead letters). Callers keep using logical names: handlers, publish
   * acks and dead-letter headers see `usage.record` and `USAGE`, never the prefix. Durable names
   * are not prefixed (they live inside a stream). 1 to 32 of `A-Z a-z 0-9 _ -`, not a top-level
   * subject token (`usage`, `events`, ...); anything else throws. Unset or `""`: no namespace.
   */
  namespace?: string;
}

/**
 * The distributed bus on NATS JetStream. Connects once (rejects if the server is unreachable at
 * start), then reconnects forever; while disconnected, publishes reject after `publishTimeoutMs`
 * (callers keep an outbox), consumers retry their pulls and watches resume after the last message
 * they handed over (see `nats-watch.ts`). With `namespace`, everything this bus creates and uses
 * on the server is prefixed (see `NatsBusOptions.namespace`), the API is not.
 */
export async function createNatsBus(options: NatsBusOptions): Promise<Bus> {
  const ns = validateNamespace(options.namespace);
  const logger = options.logger ?? silentLogger;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const fetchExpiresMs = Math.max(1_000, options.fetchExpiresMs ?? 5_000);
  const nc = await connect({
    servers: options.url.split(","),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
  });
  logStatus(nc, logger).catch(() => {});
  const jsm = await jetstreamManager(nc).catch(async (error: unknown) => {
    // JetStream disabled or unreachable: do not leak the connection.
    await nc.close();
    throw error;
  });
  const js = jetstream(nc);
  const subscriptions = new Set<Subscription>();
  /** Error messages name the namespace, since they name logical subjects. */
  const where = ns ? ` (bus namespace "${ns}")` : "";
  let deadLetterStream: Promise<void> | undefined;

  async function ensureStream(definition: StreamDefinition): Promise<void> {
    assertValidName("stream", definition.name);
    const maxAge = definition.maxAgeMs === undefined ? 0 : nanos(definition.maxAgeMs);
    let duplicateWindow = nanos(definition.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS);
    // The server refuses a dedupe window longer than the retention.
    if (maxAge > 0 && duplicateWindow > maxAge) duplicateWindow = maxAge;
    const subjects = definition.subjects.map((subject) => subjectIn(ns, subject));
    const settings = { subjects, duplicate_window: duplicateWindow, max_age: maxAge };
    try {
      // Adding an existing stream with the same config is a no-op on the server.
      await jsm.streams.add({
        name: streamName(ns, definition.name),
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        ...settings,
      });
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.code !== STREAM_NAME_IN_USE) throw error;
      await jsm.streams.update(streamName(ns, definition.name), settings);
    }
  }

  async function publish(
    subject: string,
    data: Uint8Array,
    publishOptions: PublishOptions = {},
  ): Promise<PublishAck> {
    const { msgId, headers } = publishOptions;
    const natsHeaderSet = headers && Object.keys(headers).length > 0 ? natsHeaders() : undefined;
    for (const [name, value] of Object.entries(headers ?? {})) natsHeaderSet?.set(name, value);
    try {
      // The client's own timeout should fire first; the race is a guard against a request that
      // never settles (e.g. stuck in a reconnect buffer), since callers must never hang.
      const ack = await withTimeout(
        js.publish(subjectIn(ns, subject), data, {
          timeout: publishTimeoutMs,
          ...(msgId === undefined ? {} : { msgID: msgId }),
          ...(natsHeaderSet ? { headers: natsHeaderSet } : {}),
        }),
        publishTimeoutMs + 1_000,
        `publish to "${subject}"${where} timed out after ${publishTimeoutMs} ms`,
      );
      return { stream: streamNameOut(ns, ack.stream), seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      // "No responders" surfaces as JetStreamNotEnabled: nothing captured the subject.
      const reason =
        error instanceof Error && error.name === "JetStreamNotEnabled"
          ? "no stream captures the subject"
          : errorMessage(error);
      throw new Error(`publish to "${subject}"${where} failed: ${reason}`, { cause: error });
    }
  }

  /** The DLQ stream must exist before the first dead letter; created once per bus. */
  function ensureDeadLetterStream(): Promise<void> {
    deadLetterStream ??= ensureStream(DEAD_LETTER_STREAM).catch((error: unknown) => {
      deadLetterStream = undefined;
      throw error;
    });
    return deadLetterStream;
  }

  async function consume(consumerOptions: ConsumerOptions, handler: MessageHandler): Promise<Subscription> {
    const resolved = resolveConsumerOptions(consumerOptions);
    await ensureDeadLetterStream();
    // Create or update: nats-server applies changed settings of an existing durable on add.
    const stream = streamName(ns, resolved.stream);
    await jsm.consumers.add(stream, {
      durable_name: resolved.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(resolved.ackWaitMs),
      // Unlimited on the server: dead-lettering after maxDeliver is ours (see NatsSubscription).
      max_deliver: -1,
      ...(resolved.filterSubject === undefined
        ? {}
        : { filter_subject: subjectIn(ns, resolved.filterSubject) }),
    });
    const consumer = await js.consumers.get(stream, resolved.durable);
    const subscription = new NatsSubscription(consumer, resolved, handler, {
      logger,
      namespace: ns,
      fetchExpiresMs,
      ackTimeoutMs: publishTimeoutMs,
      // Dead letters carry logical names; publish() maps them into this namespace's DLQ stream.
      publishDeadLetter: async ({ subject, data, headers, msgId }) => {
        await publish(subject, data, { headers, msgId });
      },
    });
    subscriptions.add(subscription);
    return {
      async stop() {
        subscriptions.delete(subscription);
        await subscription.stop();
      },
    };
  }

  /** A broadcast watch: an ordered consumer of its own (see `nats-watch.ts`). */
  async function watch(watchOptions: WatchOptions, handler: WatchHandler): Promise<Subscription> {
    assertValidName("stream", watchOptions.stream);
    const subscription = await startNatsWatch(
      { js, jsm, logger, namespace: ns, expiresMs: fetchExpiresMs, isClosed: () => nc.isClosed() },
      watchOptions,
      handler,
    );
    subscriptions.add(subscription);
    return {
      async stop() {
        subscriptions.delete(subscription);
        await subscription.stop();
      },
    };
  }

  async function pending(stream: string, durable: string): Promise<number> {
    try {
      const info = await jsm.consumers.info(streamName(ns, stream), durable);
      return info.num_pending + info.num_ack_pending;
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.code !== JetStreamApiCodes.ConsumerNotFound)
        throw error;
      // A durable created now would start at the first message: all of them are pending for it.
      return (await jsm.streams.info(streamName(ns, stream))).state.messages;
    }
  }

  async function close(): Promise<void> {
    await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    subscriptions.clear();
    if (!nc.isClosed()) await nc.drain();
  }

  return { kind: "nats", ensureStream, publish, consume, watch, pending, close };
}

/** Log connection changes; the iterator ends when the connection closes. */
async function logStatus(nc: NatsConnection, logger: BusLogger): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === "disconnect" || status.type === "staleConnection") {
      logger.warn({ status }, "nats disconnected");
    } else if (status.type === "reconnect") {
      logger.info({ status }, "nats reconnected");
    } else if (status.type === "error" || status.type === "slowConsumer") {
      logger.error({ status }, "nats connection error");
    } else {
      logger.debug({ status }, "nats status");
    }
  }
}
