import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

/** Remove test streams, plus their dead letters and DLQ readers from the shared DLQ stream. */
export async function deleteNatsStreams(url: string, streams: string[]): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const stream of streams) {
      await jsm.streams.delete(stream).catch(() => false);
      const prefix = `dlq.${stream}.`;
      await jsm.streams.purge("DLQ", { filter: `${prefix}>` }).catch(() => undefined);
      for await (const consumer of jsm.consumers.list("DLQ")) {
        if (consumer.config.filter_subject?.startsWith(prefix))
          await jsm.consumers.delete("DLQ", consumer.name);
      }
    }
  } finally {
    await nc.close();
  }
}
