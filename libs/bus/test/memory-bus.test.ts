import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  type Bus,
  type BusMessage,
  createBus,
  createMemoryBus,
  deadLetterSubject,
  decodeJson,
  encodeJson,
  ensureProjectStreams,
  Streams,
  Subjects,
  subjectMatches,
} from "../src/index.js";
import { waitFor } from "./helpers.js";

const STREAM = { name: "WORK", subjects: ["work.>"] };

describe("memory bus durability (dataDir)", () => {
  let dataDir: string;
  const buses: Bus[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gw-bus-crash-"));
  });

  afterEach(async () => {
    // Only the buses that were not "crashed" are closed.
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  async function openBus(compactAfterRecords?: number): Promise<Bus> {
    const bus = createMemoryBus({ dataDir, compactAfterRecords });
    await bus.ensureStream(STREAM);
    return bus;
  }

  it("redelivers unacked messages after a crash, and not the acked ones", async () => {
    const crashed = await openBus();
    for (const n of [1, 2, 3, 4]) await crashed.publish("work.item", encodeJson(n), { msgId: `item-${n}` });
    await crashed.consume({ stream: "WORK", durable: "worker", ackWaitMs: 60_000 }, (message) => {
      // 1 and 2 succeed; 3 and 4 are still running when the process "dies".
      return decodeJson<number>(message.data) <= 2 ? Promise.resolve() : new Promise<void>(() => {});
    });
    await waitFor("1 and 2 acked", async () => (await crashed.pending("WORK", "worker")) === 2);
    // The crash: `crashed` is dropped without close(); its hung handlers never settle.

    const restarted = await openBus();
    buses.push(restarted);
    assert.equal(await restarted.pending("WORK", "worker"), 2);
    const received: BusMessage[] = [];
    await restarted.consume({ stream: "WORK", durable: "worker" }, async (message) => {
      received.push(message);
    });
    await waitFor("unacked redelivered", () => received.length === 2);
    await waitFor("acked", async () => (await restarted.pending("WORK", "worker")) === 0);
    assert.deepEqual(
      received.map((message) => decodeJson<number>(message.data)),
      [3, 4],
    );
    assert.deepEqual(
      received.map((message) => message.seq),
      [3, 4],
    );
    // Sequences and msgId dedupe survive the restart.
    assert.equal((await restarted.publish("work.item", encodeJson(4), { msgId: "item-4" })).duplicate, true);
    assert.equal((await restarted.publish("work.item", encodeJson(5))).seq, 5);
  });

  it("compacts a fully acked stream file and keeps sequences and dedupe", async () => {
    const bus = await openBus(1);
    let handled = 0;
    await bus.consume({ stream: "WORK", durable: "worker" }, async () => {
      handled++;
    });
    for (const n of [1, 2, 3]) await bus.publish("work.item", encodeJson(n), { msgId: `item-${n}` });
    await waitFor("all acked", async () => handled === 3 && (await bus.pending("WORK", "worker")) === 0);
    await bus.close();

    const streamFile = readFileSync(join(dataDir, "bus", "WORK.jsonl"), "utf8")
      .trim()
      .split("\n");
    assert.equal(streamFile.length, 1, "only the meta line is left");
    assert.equal(JSON.parse(streamFile[0]!).meta.lastSeq, 3);
    assert.equal(readFileSync(join(dataDir, "bus", "WORK.worker.acks"), "utf8"), "f \n");

    const restarted = await openBus(1);
    buses.push(restarted);
    assert.equal((await restarted.publish("work.item", encodeJson(3), { msgId: "item-3" })).duplicate, true);
    assert.equal((await restarted.publish("work.item", encodeJson(4))).seq, 4);
    const received: number[] = [];
    await restarted.consume({ stream: "WORK", durable: "worker" }, async (message) => {
      received.push(decodeJson<number>(message.data));
    });
    await waitFor("new message", () => received.length === 1);
    await waitFor("acked", async () => (await restarted.pending("WORK", "worker")) === 0);
    assert.deepEqual(received, [4]);
  });

  it("ignores a record torn by a crash", async () => {
    const bus = await openBus();
    buses.push(bus);
    await bus.publish("work.item", encodeJson(1));
    appendFileSync(join(dataDir, "bus", "WORK.jsonl"), '{"seq":2,"subj');
    const restarted = await openBus();
    buses.push(restarted);
    assert.equal((await restarted.publish("work.item", encodeJson(2))).seq, 2);
    const again = await openBus();
    buses.push(again);
    assert.equal(await again.pending("WORK", "nobody"), 2);
  });
});

describe("subjectMatches", () => {
  it("follows NATS wildcard rules", () => {
    assert.equal(subjectMatches("usage.>", "usage.record"), true);
    assert.equal(subjectMatches("usage.>", "usage.a.b"), true);
    assert.equal(subjectMatches("usage.>", "usage"), false);
    assert.equal(subjectMatches("events.*", "events.x"), true);
    assert.equal(subjectMatches("events.*", "events.x.y"), false);
    assert.equal(subjectMatches("a.*.c", "a.b.c"), true);
    assert.equal(subjectMatches("a.b", "a.b"), true);
    assert.equal(subjectMatches("a.b", "a.b.c"), false);
  });
});

describe("project streams and createBus", () => {
  it("creates every project stream and routes the project subjects", async () => {
    const bus = await createBus({ name: "test" });
    try {
      assert.equal(bus.kind, "memory");
      await ensureProjectStreams(bus);
      await ensureProjectStreams(bus);
      const routes = [
        [Subjects.usageRecord, Streams.USAGE.name],
        [Subjects.event("budget.exceeded"), Streams.EVENTS.name],
        [Subjects.auditEntry, Streams.AUDIT.name],
        [Subjects.configChanged, Streams.CONFIG.name],
        [deadLetterSubject("USAGE", "writer"), Streams.DLQ.name],
      ];
      for (const [subject, stream] of routes) {
        assert.equal((await bus.publish(subject!, encodeJson({ subject }))).stream, stream);
      }
    } finally {
      await bus.close();
    }
  });
});
