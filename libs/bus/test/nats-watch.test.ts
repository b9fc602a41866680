import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type Bus, type BusMessage, createNatsBus, decodeJson, encodeJson } from "../src/index.js";
import { delay, randomId, recordingLogger, waitFor } from "./helpers.js";

/*
 * What `watch()` promises on NATS beyond the contract suite: it outlives the loss of its server-side
 * consumer and a server restart (reconnect), without replaying the stream's history.
 */

const natsUrl = process.env.NATS_URL;
/** The reconnect test runs a private server of its own (never the shared one): this binary. */
const natsServerBin = process.env.NATS_SERVER_BIN ?? "nats-server";
const hasNatsServer = spawnSync(natsServerBin, ["--version"]).status === 0;

const texts = (messages: BusMessage[]) => messages.map((message) => decodeJson<string>(message.data));

/** A watch that keeps every message it gets. */
async function watchAll(bus: Bus, stream: string): Promise<BusMessage[]> {
  const received: BusMessage[] = [];
  await bus.watch({ stream }, (message) => {
    received.push(message);
  });
  return received;
}

if (natsUrl) {
  describe("nats watch", () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let buses: Bus[] = [];
    let streams: string[] = [];

    before(async () => {
      nc = await connect({ servers: natsUrl.split(",") });
      jsm = await jetstreamManager(nc);
    });

    after(async () => {
      await nc.close();
    });

    afterEach(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      for (const stream of streams) await jsm.streams.delete(stream).catch(() => false);
      buses = [];
      streams = [];
    });

    /** A bus with short pulls (heartbeats every 500 ms: a lost consumer is noticed in about 1 s). */
    async function openBus(): Promise<Bus> {
      const bus = await createNatsBus({ url: natsUrl!, name: "nats-watch-test", fetchExpiresMs: 1_000 });
      buses.push(bus);
      return bus;
    }

    async function freshStream(bus: Bus) {
      const id = randomId();
      const stream = `T_${id.toUpperCase()}`;
      await bus.ensureStream({ name: stream, subjects: [`t${id}.>`] });
      streams.push(stream);
      return { stream, subject: `t${id}.x` };
    }

    async function consumerNames(stream: string): Promise<string[]> {
      const names: string[] = [];
      for await (const consumer of jsm.consumers.list(stream)) names.push(consumer.name);
      return names;
    }

    /** Delete the watch's consumer, then wait until the client has created its successor. */
    async function deleteWatchConsumer(stream: string): Promise<void> {
      const [name, ...others] = await consumerNames(stream);
      assert.ok(name !== undefined && others.length === 0, "one watch consumer");
      await jsm.consumers.delete(stream, name);
      await waitFor(
        "the consumer recreated",
        async () => {
          const now = await consumerNames(stream);
          return now.length === 1 && now[0] !== name;
        },
        15_000,
      );
    }

    it("survives the loss of its consumer, without replaying history", async () => {
      const bus = await openBus();
      const { stream, subject } = await freshStream(bus);
      for (const n of [1, 2, 3]) await bus.publish(subject, encodeJson(`old ${n}`));
      const received = await watchAll(bus, stream);
      // Lost before it delivered anything: a consumer started with DeliverPolicy.New would now be
      // recreated from sequence 1 and replay the three old messages.
      await deleteWatchConsumer(stream);
      await bus.publish(subject, encodeJson("new"));
      await waitFor("the new one", () => received.length === 1);
      // Lost again, and a message stored while it was gone: the successor starts after the last
      // message handed over, so that one is not lost.
      const [name] = await consumerNames(stream);
      await jsm.consumers.delete(stream, name!);
      await bus.publish(subject, encodeJson("while gone"));
      await waitFor("the one stored while gone", () => received.length === 2, 15_000);
      await delay(300);
      assert.deepEqual(texts(received), ["new", "while gone"]);
      assert.deepEqual(
        received.map((message) => message.seq),
        [4, 5],
      );
    });

    it("stop() and close() delete the server-side consumers", async () => {
      const bus = await openBus();
      const { stream } = await freshStream(bus);
      const first = await bus.watch({ stream }, () => {});
      await bus.watch({ stream }, () => {});
      assert.equal((await consumerNames(stream)).length, 2);
      await first.stop();
      assert.equal((await consumerNames(stream)).length, 1);
      await bus.close();
      assert.equal((await consumerNames(stream)).length, 0);
    });
  });
} else {
  describe("nats watch", () => {
    it.skip("NATS_URL not set");
  });
}

if (natsUrl && hasNatsServer) {
  describe("nats watch across a server restart", () => {
    let server: ChildProcess | undefined;
    let storeDir: string;
    let port: number;

    before(async () => {
      storeDir = await mkdtemp(join(tmpdir(), "gw-nats-watch-"));
      port = await freePort();
    });

    after(async () => {
      await stopServer();
      await rm(storeDir, { recursive: true, force: true });
    });

    async function startServer(): Promise<void> {
      const child = spawn(natsServerBin, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], {
        stdio: "ignore",
      });
      server = child;
      await waitFor("the private nats-server", async () => {
        const probe = await connect({ servers: `nats://127.0.0.1:${port}`, reconnect: false }).catch(
          () => undefined,
        );
        await probe?.close();
        return probe !== undefined;
      });
    }

    /** SIGKILL: the server vanishes as in a crash, connections drop without goodbye. */
    async function stopServer(): Promise<void> {
      const child = server;
      server = undefined;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }

    it("keeps delivering after the bus reconnects", async () => {
      await startServer();
      const logger = recordingLogger();
      const bus = await createNatsBus({
        url: `nats://127.0.0.1:${port}`,
        name: "nats-watch-restart-test",
        fetchExpiresMs: 1_000,
        publishTimeoutMs: 1_000,
        logger,
      });
      try {
        const stream = "T_RESTART";
        await bus.ensureStream({ name: stream, subjects: ["restart.>"] });
        await bus.publish("restart.x", encodeJson("old"));
        const received = await watchAll(bus, stream);
        await bus.publish("restart.x", encodeJson("before"));
        await waitFor("before the restart", () => received.length === 1);

        await stopServer();
        await waitFor("the bus saw the disconnect", () =>
          logger.entries.some((entry) => entry.msg === "nats disconnected"),
        );
        await startServer();
        // Retried until the bus is back; the msgId makes a retry that did get stored harmless.
        await waitFor(
          "a publish after the restart",
          () =>
            bus.publish("restart.x", encodeJson("after"), { msgId: "after" }).then(
              () => true,
              () => false,
            ),
          20_000,
        );
        await waitFor("after the restart", () => received.length === 2, 15_000);
        await delay(300);
        assert.deepEqual(texts(received), ["before", "after"]);
      } finally {
        await bus.close();
      }
    });
  });
} else {
  describe("nats watch across a server restart", () => {
    it.skip("NATS_URL not set or no nats-server binary (NATS_SERVER_BIN)");
  });
}

/** A free TCP port on loopback (bound then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
