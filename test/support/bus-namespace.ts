import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

/**
 * A NATS namespace of its own for one distributed suite (`BUS_NAMESPACE`): suites run two at a
 * time on one NATS server, and without it one suite's usage-writer would consume the other's usage
 * records (the durable `usage-writer` is shared) and write them into the wrong database.
 */
export function testBusNamespace(): string {
  return `t${randomBytes(4).toString("hex")}`;
}

/** Delete the namespace's streams once the suite is done, so repeated runs leave nothing behind. */
export async function deleteBusNamespace(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(",") });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(`${namespace}_`)) await jsm.streams.delete(stream.config.name);
    }
  } finally {
    await nc.close();
  }
}
