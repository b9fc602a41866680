import type { Bus } from "./bus.js";
import type { BusLogger } from "./logger.js";
import { createMemoryBus } from "./memory-bus.js";
import { createNatsBus } from "./nats-bus.js";

export interface CreateBusOptions {
  /** Set in distributed mode: the bus is NATS JetStream. */
  natsUrl?: string;
  /** Standalone mode: where the memory bus keeps its files (omit for a purely in-memory bus). */
  dataDir?: string;
  /** Service name (NATS connection name). */
  name: string;
  logger?: BusLogger;
}

/** The NATS bus when `natsUrl` is set, else the in-process bus (durable when `dataDir` is set). */
export async function createBus(options: CreateBusOptions): Promise<Bus> {
  const { natsUrl, dataDir, name, logger } = options;
  if (natsUrl) return createNatsBus({ url: natsUrl, name, logger });
  return createMemoryBus({ dataDir, logger });
}
