import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Bus, type BusMessage, createMemoryBus, Streams } from "@gw/bus";
import { createLogger } from "@gw/logger";
import { waitFor } from "@gw/testing";
import { createOutbox } from "./outbox.js";

const logger = createLogger({ name: "outbox-test", level: "silent" });
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempLog(): string {
  const dir = mkdtempSync(join(tmpdir(), "gw-outbox-"));
  dirs.push(dir);
  return join(dir, "outbox.jsonl");
}

async function busWithUsageStream(): Promise<{ bus: Bus; received: BusMessage[] }> {
  const bus = createMemoryBus();
  await bus.ensureStream(Streams.USAGE);
  const received: BusMessage[] = [];
  await bus.consume({ stream: Streams.USAGE.name, durable: "test" }, async (message) => {
    received.push(message);
  });
  return { bus, received };
}

/** A bus whose publishes fail while `down` is true, as a NATS outage looks to the outbox. */
function flaky(bus: Bus): Bus & { down: boolean } {
  const wrapper = Object.create(bus) as Bus & { down: boolean };
  wrapper.down = true;
  wrapper.publish = (subject, data, options) =>
    wrapper.down ? Promise.reject(new Error("bus unreachable")) : bus.publish(subject, data, options);
  return wrapper;
}

const entry = (id: string) => ({
  id,
  subject: "usage.record",
  data: new TextEncoder().encode(id),
  headers: { traceparent: `tp-${id}` },
});

describe("usage outbox", () => {
  it("publishes with the message id and headers", async () => {
    const { bus, received } = await busWithUsageStream();
    const outbox = createOutbox({ bus, logger });
    outbox.enqueue(entry("a"));
    await waitFor(() => received.length === 1);
    assert.equal(received[0]?.headers.traceparent, "tp-a");
    assert.equal(outbox.pending, 0);
    await bus.close();
  });

  it("keeps messages while the bus is down and publishes them when it is back", async () => {
    const { bus, received } = await busWithUsageStream();
    const unreliable = flaky(bus);
    const outbox = createOutbox({ bus: unreliable, logger, retryBaseMs: 10, retryMaxMs: 20, maxPending: 2 });
    outbox.enqueue(entry("a"));
    outbox.enqueue(entry("b"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(outbox.pending, 2);
    assert.equal(outbox.full, true, "full at maxPending: ingress refuses new calls");
    unreliable.down = false;
    await outbox.flush(2000);
    assert.equal(outbox.pending, 0);
    assert.deepEqual(received.map((m) => new TextDecoder().decode(m.data)).sort(), ["a", "b"]);
    await bus.close();
  });

  it("replays what was queued and never acknowledged after a crash, and nothing acknowledged", async () => {
    const path = tempLog();
    const first = await busWithUsageStream();
    const outbox = createOutbox({ bus: first.bus, logger, path });
    outbox.enqueue(entry("acked"));
    await waitFor(() => first.received.length === 1);
    const down = flaky(first.bus);
    const stuck = createOutbox({ bus: down, logger, path, retryBaseMs: 10_000 });
    stuck.enqueue(entry("lost-in-crash"));
    // "Crash": the stuck outbox is dropped without flush or close.
    const second = await busWithUsageStream();
    const replayed = createOutbox({ bus: second.bus, logger, path });
    await replayed.flush(2000);
    assert.deepEqual(
      second.received.map((m) => [new TextDecoder().decode(m.data), m.headers.traceparent]),
      [["lost-in-crash", "tp-lost-in-crash"]],
    );
    await first.bus.close();
    await second.bus.close();
  });
});
