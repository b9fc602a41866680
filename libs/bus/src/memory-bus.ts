import { join } from "node:path";
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
import { DEAD_LETTER_STREAM, type DeadLetter } from "./dead-letter.js";
import { type BusLogger, silentLogger } from "./logger.js";
import { StreamFiles } from "./memory-store.js";
import { MemoryStream } from "./memory-stream.js";
import { assertValidName, resolveConsumerOptions } from "./options.js";

export interface MemoryBusOptions {
  /**
   * Makes the bus durable: messages and acks are appended under `<dataDir>/bus/` and a new bus on
   * the same dir redelivers everything not acked. Without it the bus lives in memory only.
   */
  dataDir?: string;
  logger?: BusLogger;
  /**
   * Rewrite a stream file only when it holds at least this many records (and all are settled), so
   * a consumer that keeps up does not cause a rewrite per message. Default 1000.
   */
  compactAfterRecords?: number;
}

/**
 * The in-process bus of the standalone mode, with the semantics of the NATS bus (see `bus.ts`):
 * publish resolves once stored, consumers are woken in a microtask (no polling), redelivery after a
 * throw (nak delay) or ack wait, dead letters after `maxDeliver`; watchers get every message stored
 * after their `watch()` call (it attaches synchronously), in order, with no gap ever.
 *
 * Differences from NATS, none visible through the contract: once a stream has durables, messages
 * all of them settled are dropped (a durable created later starts at the oldest message kept); a
 * restart from `dataDir` counts deliveries from 1 again. No `namespace` option (see the NATS bus): a
 * memory bus is private to its process, so there is nothing to share and collide with.
 */
export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  const logger = options.logger ?? silentLogger;
  const dataDir = options.dataDir === undefined ? undefined : join(options.dataDir, "bus");
  const compactAfterRecords = options.compactAfterRecords ?? 1_000;
  const streams = new Map<string, MemoryStream>();
  const subscriptions = new Set<Subscription>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error("bus is closed");
  }

  function streamFor(subject: string): MemoryStream {
    for (const stream of streams.values()) {
      if (stream.captures(subject)) return stream;
    }
    throw new Error(`no stream captures subject "${subject}"`);
  }

  function storeDeadLetter({ subject, data, headers, msgId }: DeadLetter): void {
    streamFor(subject).store(subject, data, { headers, msgId });
  }

  function ensureStreamSync(definition: StreamDefinition): void {
    assertValidName("stream", definition.name);
    const existing = streams.get(definition.name);
    if (existing) {
      existing.definition = { ...definition };
      return;
    }
    const files = dataDir === undefined ? undefined : new StreamFiles(dataDir, definition.name, logger);
    streams.set(
      definition.name,
      new MemoryStream({ ...definition }, files, storeDeadLetter, logger, compactAfterRecords),
    );
  }

  return {
    kind: "memory",

    async ensureStream(definition: StreamDefinition): Promise<void> {
      assertOpen();
      ensureStreamSync(definition);
    },

    async publish(subject: string, data: Uint8Array, publishOptions?: PublishOptions): Promise<PublishAck> {
      assertOpen();
      return streamFor(subject).store(subject, data, publishOptions);
    },

    async consume(consumerOptions: ConsumerOptions, handler: MessageHandler): Promise<Subscription> {
      assertOpen();
      const resolved = resolveConsumerOptions(consumerOptions);
      const stream = streams.get(resolved.stream);
      if (!stream) throw new Error(`stream "${resolved.stream}" not found`);
      // Dead letters need somewhere to go before the first one happens.
      if (!streams.has(DEAD_LETTER_STREAM.name)) ensureStreamSync(DEAD_LETTER_STREAM);
      const subscription = stream.consumer(resolved).attach(resolved.maxInFlight, handler);
      subscriptions.add(subscription);
      return {
        async stop() {
          subscriptions.delete(subscription);
          await subscription.stop();
        },
      };
    },

    async watch(watchOptions: WatchOptions, handler: WatchHandler): Promise<Subscription> {
      assertOpen();
      assertValidName("stream", watchOptions.stream);
      const stream = streams.get(watchOptions.stream);
      if (!stream) throw new Error(`stream "${watchOptions.stream}" not found`);
      const subscription = stream.watch(watchOptions.filterSubject, handler);
      subscriptions.add(subscription);
      return {
        async stop() {
          subscriptions.delete(subscription);
          await subscription.stop();
        },
      };
    },

    async pending(streamName: string, durable: string): Promise<number> {
      const stream = streams.get(streamName);
      if (!stream) throw new Error(`stream "${streamName}" not found`);
      return stream.pending(durable);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      subscriptions.clear();
      for (const stream of streams.values()) stream.close();
    },
  };
}
