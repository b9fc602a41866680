import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  type Bus,
  type BusMessage,
  createBus,
  createNatsBus,
  DeadLetterHeaders,
  deadLetterSubject,
  decodeJson,
  encodeJson,
  ensureProjectStreams,
  Streams,
  Subjects,
  validateNamespace,
} from "../src/index.js";
import { streamName, streamNameOut, subjectIn, subjectOut } from "../src/namespace.js";
import { delay, randomId, waitFor } from "./helpers.js";

describe("bus namespace names", () => {
  it("accepts 1 to 32 of A-Z a-z 0-9 _ -, and treats unset or empty as none", () => {
    assert.equal(validateNamespace(undefined), undefined);
    assert.equal(validateNamespace(""), undefined);
    for (const ns of ["t1", "Prod_eu-1", "a".repeat(32), "USAGE"]) assert.equal(validateNamespace(ns), ns);
  });

  it("rejects anything else, and the project's top-level subject tokens", () => {
    for (const ns of ["a.b", "a b", " a", "a*", ">", "a/b", "é", "a".repeat(33), "usage", "dlq"]) {
      assert.throws(() => validateNamespace(ns), /invalid bus namespace/, ns);
    }
  });

  it("maps names only when a namespace is set", () => {
    assert.equal(streamName(undefined, "USAGE"), "USAGE");
    assert.equal(subjectIn(undefined, "usage.record"), "usage.record");
    assert.equal(subjectOut(undefined, "usage.record"), "usage.record");
    assert.equal(streamNameOut(undefined, "a_USAGE"), "a_USAGE");
    assert.equal(streamName("a", "USAGE"), "a_USAGE");
    assert.equal(streamNameOut("a", "a_USAGE"), "USAGE");
    assert.equal(subjectIn("a", "events.>"), "a.events.>");
    assert.equal(subjectOut("a", "a.events.budget.exceeded"), "events.budget.exceeded");
    assert.equal(subjectOut("a", "ab.usage.record"), "ab.usage.record");
  });

  it("createNatsBus and createBus throw on an invalid namespace before connecting", async () => {
    // Port 1: were the namespace checked after connecting, this would fail with a connection error.
    const url = "nats://127.0.0.1:1";
    await assert.rejects(createNatsBus({ url, name: "ns-test", namespace: "a.b" }), /invalid bus namespace/);
    await assert.rejects(
      createBus({ natsUrl: url, name: "ns-test", namespace: "a b" }),
      /invalid bus namespace/,
    );
    await assert.rejects(createBus({ name: "ns-test", namespace: "x".repeat(33) }), /invalid bus namespace/);
  });

  it("the memory bus ignores a valid namespace", async () => {
    const bus = await createBus({ name: "ns-test", namespace: "tmemory" });
    try {
      assert.equal(bus.kind, "memory");
      await ensureProjectStreams(bus);
      const ack = await bus.publish(Subjects.usageRecord, encodeJson(1));
      assert.equal(ack.stream, "USAGE");
    } finally {
      await bus.close();
    }
  });
});

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  describe("nats bus namespaces", () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let buses: Bus[] = [];
    /** Namespaces and un-namespaced streams a test created, deleted after it. */
    let namespaces: string[] = [];
    let plainStreams: string[] = [];

    before(async () => {
      nc = await connect({ servers: natsUrl.split(",") });
      jsm = await jetstreamManager(nc);
    });

    after(async () => {
      await nc.close();
    });

    afterEach(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      const prefixes = namespaces.map((ns) => `${ns}_`);
      for await (const stream of jsm.streams.list()) {
        const { name } = stream.config;
        if (prefixes.some((prefix) => name.startsWith(prefix)) || plainStreams.includes(name))
          await jsm.streams.delete(name);
      }
      buses = [];
      namespaces = [];
      plainStreams = [];
    });

    /** A bus with a namespace of its own (random per run), or none when `namespaced` is false. */
    async function openBus(namespaced = true): Promise<{ bus: Bus; ns: string }> {
      const ns = namespaced ? `ns${randomId()}` : "";
      if (ns) namespaces.push(ns);
      const bus = await createNatsBus({ url: natsUrl!, name: "bus-namespace-test", namespace: ns });
      buses.push(bus);
      return { bus, ns };
    }

    /** Every message a consumer receives, in order. */
    async function collect(bus: Bus, stream: string, durable: string, filterSubject?: string) {
      const received: BusMessage[] = [];
      await bus.consume({ stream, durable, filterSubject }, async (message) => {
        received.push(message);
      });
      return received;
    }

    it("keeps two namespaces apart on the same logical stream and durable", async () => {
      const a = await openBus();
      const b = await openBus();
      await ensureProjectStreams(a.bus);
      await ensureProjectStreams(b.bus);
      for (const n of [1, 2]) {
        const ack = await a.bus.publish(Subjects.usageRecord, encodeJson({ from: "a", n }));
        assert.deepEqual(ack, { stream: "USAGE", seq: n, duplicate: false });
      }
      for (const n of [1, 2, 3]) await b.bus.publish(Subjects.usageRecord, encodeJson({ from: "b", n }));

      // What the server holds: prefixed stream names, stream subjects and message subjects.
      const info = await jsm.streams.info(`${a.ns}_USAGE`);
      assert.deepEqual(info.config.subjects, [`${a.ns}.usage.>`]);
      assert.equal(info.state.messages, 2);
      assert.equal(
        (await jsm.streams.getMessage(`${b.ns}_USAGE`, { seq: 1 }))?.subject,
        `${b.ns}.usage.record`,
      );

      const durable = "usage-writer";
      assert.equal(await a.bus.pending(Streams.USAGE.name, durable), 2);
      assert.equal(await b.bus.pending(Streams.USAGE.name, durable), 3);
      const receivedA = await collect(a.bus, Streams.USAGE.name, durable);
      const receivedB = await collect(b.bus, Streams.USAGE.name, durable);
      await waitFor("a's two", () => receivedA.length === 2);
      await waitFor("b's three", () => receivedB.length === 3);
      await waitFor("a acked", async () => (await a.bus.pending(Streams.USAGE.name, durable)) === 0);
      await waitFor("b acked", async () => (await b.bus.pending(Streams.USAGE.name, durable)) === 0);
      await delay(200);
      assert.deepEqual(
        receivedA.map((m) => [m.subject, decodeJson(m.data)]),
        [1, 2].map((n) => [Subjects.usageRecord, { from: "a", n }]),
      );
      assert.deepEqual(
        receivedB.map((m) => [m.subject, decodeJson(m.data)]),
        [1, 2, 3].map((n) => [Subjects.usageRecord, { from: "b", n }]),
      );
    });

    it("dead-letters into the namespace's own DLQ stream under logical names", async () => {
      const a = await openBus();
      const b = await openBus();
      await ensureProjectStreams(a.bus);
      await ensureProjectStreams(b.bus);
      const durable = "usage-writer";
      await a.bus.consume({ stream: "USAGE", durable, maxDeliver: 2, nakDelayMs: 20 }, async () => {
        throw new Error("cannot write");
      });
      const dlqSubject = deadLetterSubject("USAGE", durable);
      const dead = await collect(a.bus, "DLQ", "dlq-reader", dlqSubject);
      await a.bus.publish(Subjects.usageRecord, encodeJson({ bad: true }), { msgId: "bad-1" });
      await waitFor("dead letter", () => dead.length === 1);
      await waitFor("terminated", async () => (await a.bus.pending("USAGE", durable)) === 0);
      const [letter] = dead;
      assert.equal(letter?.subject, dlqSubject);
      assert.deepEqual(decodeJson(letter!.data), { bad: true });
      assert.equal(letter?.headers[DeadLetterHeaders.originalSubject], Subjects.usageRecord);
      assert.equal(letter?.headers[DeadLetterHeaders.stream], "USAGE");
      assert.equal(letter?.headers[DeadLetterHeaders.durable], durable);
      assert.equal(letter?.headers[DeadLetterHeaders.deliveries], "2");

      const stored = await jsm.streams.getMessage(`${a.ns}_DLQ`, { seq: 1 });
      assert.equal(stored?.subject, `${a.ns}.dlq.USAGE.${durable}`);
      assert.equal((await jsm.streams.info(`${a.ns}_DLQ`)).state.messages, 1);
      assert.equal((await jsm.streams.info(`${b.ns}_DLQ`)).state.messages, 0);
      assert.equal(await b.bus.pending("DLQ", "dlq-reader"), 0);
    });

    it("keeps a namespaced bus apart from an un-namespaced one, filters included", async () => {
      const plain = await openBus(false);
      const spaced = await openBus();
      const id = randomId();
      const definition = { name: `T_${id.toUpperCase()}`, subjects: [`t${id}.>`] };
      plainStreams.push(definition.name);
      await plain.bus.ensureStream(definition);
      await spaced.bus.ensureStream(definition);
      assert.deepEqual((await jsm.streams.info(definition.name)).config.subjects, [`t${id}.>`]);
      assert.deepEqual((await jsm.streams.info(`${spaced.ns}_${definition.name}`)).config.subjects, [
        `${spaced.ns}.t${id}.>`,
      ]);

      const keep = `t${id}.keep`;
      for (const { bus, ns } of [plain, spaced]) {
        await bus.publish(`t${id}.skip`, encodeJson(`${ns}:skip`));
        await bus.publish(keep, encodeJson(`${ns}:keep`));
      }
      const durable = `worker_${id}`;
      const plainReceived = await collect(plain.bus, definition.name, durable, keep);
      const spacedReceived = await collect(spaced.bus, definition.name, durable, keep);
      await waitFor("plain's", () => plainReceived.length === 1);
      await waitFor("spaced's", () => spacedReceived.length === 1);
      await delay(200);
      assert.deepEqual(
        plainReceived.map((m) => [m.subject, decodeJson(m.data)]),
        [[keep, ":keep"]],
      );
      assert.deepEqual(
        spacedReceived.map((m) => [m.subject, decodeJson(m.data)]),
        [[keep, `${spaced.ns}:keep`]],
      );
      assert.equal(
        (await jsm.consumers.info(`${spaced.ns}_${definition.name}`, durable)).config.filter_subject,
        `${spaced.ns}.${keep}`,
      );
    });

    it("keeps watchers of two namespaces (and of no namespace) apart, under logical subjects", async () => {
      const a = await openBus();
      const b = await openBus();
      const plain = await openBus(false);
      const id = randomId();
      const definition = { name: `T_${id.toUpperCase()}`, subjects: [`t${id}.>`] };
      plainStreams.push(definition.name);
      const subject = `t${id}.changed`;
      const watchers = [a, b, plain].map(({ bus }) => ({ bus, received: [] as BusMessage[] }));
      for (const watcher of watchers) {
        await watcher.bus.ensureStream(definition);
        await watcher.bus.watch({ stream: definition.name, filterSubject: subject }, (message) => {
          watcher.received.push(message);
        });
      }
      // Two watchers of one namespace (two replicas) both get each of its messages.
      const aReplica: BusMessage[] = [];
      await a.bus.watch({ stream: definition.name }, (message) => {
        aReplica.push(message);
      });
      await a.bus.publish(subject, encodeJson("a"));
      await b.bus.publish(subject, encodeJson("b"));
      await b.bus.publish(subject, encodeJson("b"));
      await plain.bus.publish(subject, encodeJson("plain"));
      const [onA, onB, onPlain] = watchers;
      await waitFor("a's", () => onA!.received.length === 1 && aReplica.length === 1);
      await waitFor("b's", () => onB!.received.length === 2);
      await waitFor("plain's", () => onPlain!.received.length === 1);
      await delay(200);
      const seen = (messages: BusMessage[]) => messages.map((m) => [m.subject, decodeJson(m.data), m.seq]);
      assert.deepEqual(seen(onA!.received), [[subject, "a", 1]]);
      assert.deepEqual(seen(aReplica), [[subject, "a", 1]]);
      assert.deepEqual(seen(onB!.received), [
        [subject, "b", 1],
        [subject, "b", 2],
      ]);
      assert.deepEqual(seen(onPlain!.received), [[subject, "plain", 1]]);
      // The watch consumers live in each namespace's own stream, filtered on the prefixed subject.
      const filters: Array<string | undefined> = [];
      for await (const consumer of jsm.consumers.list(`${a.ns}_${definition.name}`)) {
        filters.push(consumer.config.filter_subject);
      }
      assert.deepEqual(filters.sort(), [`${a.ns}.${subject}`, undefined].sort());
    });
  });
} else {
  describe("nats bus namespaces", () => {
    it.skip("NATS_URL not set");
  });
}
