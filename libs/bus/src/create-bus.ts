import type { Bus } from "./bus.js";
import type { BusLogger } from "./logger.js";
import { createMemoryBus } from "./memory-bus.js";
import { validateNamespace } from "./namespace.js";
import { createNatsBus } from "./nats-bus.js";

export interface CreateBusOptions {
  /** Set in distributed mode: the bus is NATS JetStream. */
  natsUrl?: string;
  /** Standalone mode: where the memory bus keeps its files (omit for a purely in-memory bus). */
  dataDir?: string;
  /** Service name (NATS connection name). */
  name: string;
  logger?: BusLogger;
  /**
   * NATS only: prefix of this deployment's streams (`${ns}_USAGE`) and subjects (`${ns}.usage.>`)
   * on a shared server; see `NatsBusOptions.namespace`. The memory bus is private to its process
   * and ignores it, but an invalid value throws in both modes. Unset or `""`: no namespace.
   */
  namespace?: string;
}

/** The NATS bus when `natsUrl` is set, else the in-process bus (durable when `dataDir` is set). */
export async function createBus(options: CreateBusOptions): Promise<Bus> {
  const { natsUrl, dataDir, name, logger } = options;
  const namespace = validateNamespace(options.namespace);
  if (natsUrl) return createNatsBus({ url: natsUrl, name, logger, namespace });
  return createMemoryBus({ dataDir, logger });
}
