import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  type Bus,
  type BusLogger,
  type BusMessage,
  createMemoryBus,
  createNatsBus,
  DeadLetterHeaders,
  deadLetterSubject,
  decodeJson,
  encodeJson,
} from "../src/index.js";
import { deferred, delay, type LogEntry, randomId, recordingLogger, waitFor } from "./helpers.js";
import { deleteNatsStreams } from "./nats-cleanup.js";

/** A bus under test and how to remove what a test created on shared infrastructure. */
interface BusHarness {
  bus: Bus;
  cleanup(streams: string[]): Promise<void>;
}

/** The contract of `bus.ts`, run once per implementation; the factory gets the bus's logger. */
function busContract(name: string, factory: (logger: BusLogger) => Promise<BusHarness>): void {
  describe(name, () => {
    let harness: BusHarness;
    let bus: Bus;
    let created: string[];
    /** What the bus under test logged. */
    let logged: LogEntry[];

    beforeEach(async () => {
      const logger = recordingLogger();
      logged = logger.entries;
      harness = await factory(logger);
      bus = harness.bus;
      created = [];
    });

    afterEach(async () => {
      await bus.close();
      await harness.cleanup(created);
    });

    /** A stream of its own (random name and subjects), so runs on a shared server never collide. */
    async function freshStream() {
      const id = randomId();
      const stream = `T_${id.toUpperCase()}`;
      await bus.ensureStream({ name: stream, subjects: [`t${id}.>`], duplicateWindowMs: 60_000 });
      created.push(stream);
      return { stream, durable: `worker_${id}`, subject: (suffix = "a") => `t${id}.${suffix}` };
    }

    const pendingIs = (stream: string, durable: string, expected: number) => async () =>
      (await bus.pending(stream, durable)) === expected;

    it("stores a publish and delivers data and headers to a consumer", async () => {
      const { stream, durable, subject } = await freshStream();
      const ack = await bus.publish(subject("x"), encodeJson({ n: 1 }), { headers: { "X-Test": "yes" } });
      assert.deepEqual(ack, { stream, seq: 1, duplicate: false });
      const received: BusMessage[] = [];
      await bus.consume({ stream, durable }, async (message) => {
        received.push(message);
      });
      await waitFor("one delivery", () => received.length === 1);
      const [message] = received;
      assert.equal(message?.subject, subject("x"));
      assert.deepEqual(decodeJson(message!.data), { n: 1 });
      assert.equal(message?.headers["X-Test"], "yes");
      assert.equal(message?.deliveryCount, 1);
      assert.equal(message?.seq, 1);
      await waitFor("acked", pendingIs(stream, durable, 0));
      await assert.rejects(bus.publish(`nowhere${randomId()}.x`, encodeJson(1)));
    });

    it("dedupes a msgId inside the duplicate window", async () => {
      const { stream, durable, subject } = await freshStream();
      const first = await bus.publish(subject(), encodeJson("once"), { msgId: "m-1" });
      const second = await bus.publish(subject(), encodeJson("once"), { msgId: "m-1" });
      assert.equal(first.duplicate, false);
      assert.equal(second.duplicate, true);
      assert.equal(second.seq, first.seq);
      await bus.publish(subject(), encodeJson("marker"));
      const received: string[] = [];
      await bus.consume({ stream, durable }, async (message) => {
        received.push(decodeJson<string>(message.data));
      });
      await waitFor("marker delivered", () => received.includes("marker"));
      assert.deepEqual(received, ["once", "marker"]);
    });

    it("redelivers a message whose handler threw", async () => {
      const { stream, durable, subject } = await freshStream();
      const counts: number[] = [];
      await bus.consume({ stream, durable, nakDelayMs: 20 }, async (message) => {
        counts.push(message.deliveryCount);
        if (message.deliveryCount === 1) throw new Error("first attempt fails");
      });
      await bus.publish(subject(), encodeJson("retry me"));
      await waitFor("second delivery", () => counts.length === 2);
      await waitFor("acked", pendingIs(stream, durable, 0));
      assert.deepEqual(counts, [1, 2]);
    });

    it("dead-letters after maxDeliver failures and stops redelivering", async () => {
      const { stream, durable, subject } = await freshStream();
      const counts: number[] = [];
      await bus.consume({ stream, durable, maxDeliver: 2, nakDelayMs: 20 }, async (message) => {
        counts.push(message.deliveryCount);
        throw new Error("boom\nsecond line");
      });
      const dead: BusMessage[] = [];
      const dlqSubject = deadLetterSubject(stream, durable);
      const dlqReader = { stream: "DLQ", durable: `dlq_${durable}`, filterSubject: dlqSubject };
      await bus.consume(dlqReader, async (message) => {
        dead.push(message);
      });
      await bus.publish(subject("bad"), encodeJson({ bad: true }), {
        headers: { "X-Trace": "t-1" },
        msgId: "bad-1",
      });
      await waitFor("dead letter", () => dead.length === 1);
      await waitFor("terminated", pendingIs(stream, durable, 0));
      await waitFor("dead letter acked", pendingIs("DLQ", dlqReader.durable, 0));
      assert.deepEqual(counts, [1, 2]);
      assert.equal(dead.length, 1);
      const [letter] = dead;
      assert.equal(letter?.subject, dlqSubject);
      assert.deepEqual(decodeJson(letter!.data), { bad: true });
      assert.equal(letter?.headers[DeadLetterHeaders.originalSubject], subject("bad"));
      assert.equal(letter?.headers[DeadLetterHeaders.stream], stream);
      assert.equal(letter?.headers[DeadLetterHeaders.durable], durable);
      assert.equal(letter?.headers[DeadLetterHeaders.deliveries], "2");
      assert.match(letter?.headers[DeadLetterHeaders.error] ?? "", /^boom second line$/);
      assert.equal(letter?.headers["X-Trace"], "t-1");
    });

    it("splits the messages of one durable between its consumers", async () => {
      const { stream, durable, subject } = await freshStream();
      const handledBy = new Map<number, string[]>();
      const handler = (who: string) => async (message: BusMessage) => {
        handledBy.set(message.seq, [...(handledBy.get(message.seq) ?? []), who]);
        await delay(10);
      };
      await bus.consume({ stream, durable, maxInFlight: 1 }, handler("a"));
      await bus.consume({ stream, durable, maxInFlight: 1 }, handler("b"));
      for (let i = 0; i < 10; i++) await bus.publish(subject(), encodeJson(i));
      await waitFor("all handled", () => handledBy.size === 10);
      await waitFor("all acked", pendingIs(stream, durable, 0));
      const handlers = [...handledBy.values()];
      assert.ok(
        handlers.every((who) => who.length === 1),
        "no message handled twice",
      );
      assert.ok(handlers.some((who) => who[0] === "a") && handlers.some((who) => who[0] === "b"));
    });

    it("resumes a durable after stop() with what was published meanwhile", async () => {
      const { stream, durable, subject } = await freshStream();
      const firstRun: number[] = [];
      const first = await bus.consume({ stream, durable }, async (message) => {
        firstRun.push(decodeJson<number>(message.data));
      });
      for (const n of [1, 2, 3]) await bus.publish(subject(), encodeJson(n));
      await waitFor("first three", () => firstRun.length === 3);
      await first.stop();
      for (const n of [4, 5]) await bus.publish(subject(), encodeJson(n));
      assert.equal(await bus.pending(stream, durable), 2);
      const secondRun: number[] = [];
      await bus.consume({ stream, durable }, async (message) => {
        secondRun.push(decodeJson<number>(message.data));
      });
      await waitFor("two more", () => secondRun.length === 2);
      await waitFor("acked", pendingIs(stream, durable, 0));
      assert.deepEqual(firstRun, [1, 2, 3]);
      assert.deepEqual(secondRun, [4, 5]);
    });

    it("runs at most maxInFlight handlers at once", async () => {
      const { stream, durable, subject } = await freshStream();
      for (let i = 0; i < 6; i++) await bus.publish(subject(), encodeJson(i));
      let running = 0;
      let peak = 0;
      let done = 0;
      await bus.consume({ stream, durable, maxInFlight: 2 }, async () => {
        running++;
        peak = Math.max(peak, running);
        await delay(30);
        running--;
        done++;
      });
      await waitFor("six handled", () => done === 6);
      assert.equal(peak, 2);
    });

    it("stop() waits for a handler in flight and its ack", async () => {
      const { stream, durable, subject } = await freshStream();
      const started = deferred();
      const release = deferred();
      let handlerFinished = false;
      const subscription = await bus.consume({ stream, durable }, async () => {
        started.resolve();
        await release.promise;
        handlerFinished = true;
      });
      await bus.publish(subject(), encodeJson("slow"));
      await started.promise;
      let stopped = false;
      const stopping = subscription.stop().then(() => {
        stopped = true;
      });
      await delay(50);
      assert.equal(stopped, false, "stop() returned while a handler was running");
      release.resolve();
      await stopping;
      assert.equal(handlerFinished, true);
      assert.equal(await bus.pending(stream, durable), 0);
    });

    it("redelivers when a handler exceeds ackWaitMs", async () => {
      const { stream, durable, subject } = await freshStream();
      const release = deferred();
      const deliveries: Array<{ seq: number; count: number; at: number }> = [];
      await bus.consume({ stream, durable, ackWaitMs: 400, maxInFlight: 2 }, async (message) => {
        deliveries.push({ seq: message.seq, count: message.deliveryCount, at: Date.now() });
        if (message.deliveryCount === 1) await release.promise;
      });
      try {
        await bus.publish(subject(), encodeJson("hang"));
        await waitFor("redelivery", () => deliveries.length === 2);
        await waitFor("acked", pendingIs(stream, durable, 0));
        const [first, second] = deliveries;
        assert.equal(second?.seq, first?.seq);
        assert.equal(second?.count, 2);
        assert.ok(second!.at - first!.at >= 350, `redelivered after ${second!.at - first!.at} ms`);
      } finally {
        release.resolve();
      }
    });

    /** A watch that keeps every message it gets, in arrival order. */
    async function watchAll(stream: string, filterSubject?: string) {
      const received: BusMessage[] = [];
      const subscription = await bus.watch({ stream, filterSubject }, (message) => {
        received.push(message);
      });
      return { received, subscription };
    }

    const values = (messages: BusMessage[]) => messages.map((message) => decodeJson<unknown>(message.data));

    /** Long enough for a stray delivery to show up (NATS pushes within milliseconds). */
    const settle = () => delay(200);

    it("watch: every watcher gets every message, in publish order, beside a durable", async () => {
      const { stream, durable, subject } = await freshStream();
      const a = await watchAll(stream);
      const b = await watchAll(stream);
      const consumed: number[] = [];
      await bus.consume({ stream, durable }, async (message) => {
        consumed.push(message.seq);
      });
      const numbers = [0, 1, 2, 3, 4];
      for (const n of numbers) {
        await bus.publish(subject(`n${n}`), encodeJson(n), { headers: { "X-N": String(n) } });
      }
      await waitFor("a got five", () => a.received.length === 5);
      await waitFor("b got five", () => b.received.length === 5);
      await waitFor("the durable got five", () => consumed.length === 5);
      await settle();
      for (const watcher of [a, b]) {
        assert.deepEqual(values(watcher.received), numbers);
        assert.deepEqual(
          watcher.received.map((message) => message.subject),
          numbers.map((n) => subject(`n${n}`)),
        );
        assert.deepEqual(
          watcher.received.map((message) => message.seq),
          [1, 2, 3, 4, 5],
        );
        assert.ok(watcher.received.every((message) => message.deliveryCount === 1));
        assert.equal(watcher.received[2]?.headers["X-N"], "2");
      }
      assert.equal(await bus.pending(stream, durable), 0, "watchers take nothing from a durable");
    });

    it("watch: gets nothing that was published before it started", async () => {
      const { stream, subject } = await freshStream();
      await bus.publish(subject(), encodeJson("old 1"));
      await bus.publish(subject(), encodeJson("old 2"));
      const watcher = await watchAll(stream);
      await bus.publish(subject(), encodeJson("new"));
      await waitFor("the new one", () => watcher.received.length === 1);
      await settle();
      assert.deepEqual(values(watcher.received), ["new"]);
      assert.equal(watcher.received[0]?.seq, 3);
    });

    it("watch: filterSubject filters, wildcards included", async () => {
      const { stream, subject } = await freshStream();
      const exact = await watchAll(stream, subject("keep"));
      const wildcard = await watchAll(stream, subject("keep.*"));
      for (const suffix of ["skip", "keep", "keep.one", "skip.one", "keep", "keep.two.deep"]) {
        await bus.publish(subject(suffix), encodeJson(suffix));
      }
      await bus.publish(subject("keep.last"), encodeJson("keep.last"));
      await waitFor("the wildcard's last", () => wildcard.received.length === 2);
      await waitFor("the exact two", () => exact.received.length === 2);
      await settle();
      assert.deepEqual(values(exact.received), ["keep", "keep"]);
      assert.deepEqual(values(wildcard.received), ["keep.one", "keep.last"]);
      assert.deepEqual(
        wildcard.received.map((message) => message.subject),
        [subject("keep.one"), subject("keep.last")],
      );
    });

    it("watch: stop() ends delivery and waits for the handler running now", async () => {
      const { stream, subject } = await freshStream();
      const started = deferred();
      const release = deferred();
      const received: unknown[] = [];
      let handlerFinished = false;
      const subscription = await bus.watch({ stream }, async (message) => {
        received.push(decodeJson(message.data));
        started.resolve();
        await release.promise;
        handlerFinished = true;
      });
      const other = await watchAll(stream);
      await bus.publish(subject(), encodeJson(1));
      await bus.publish(subject(), encodeJson(2));
      await started.promise;
      let stopped = false;
      const stopping = subscription.stop().then(() => {
        stopped = true;
      });
      await delay(50);
      assert.equal(stopped, false, "stop() returned while the handler was running");
      release.resolve();
      await stopping;
      assert.equal(handlerFinished, true);
      await bus.publish(subject(), encodeJson(3));
      await waitFor("the other watcher's three", () => other.received.length === 3);
      await settle();
      assert.deepEqual(received, [1], "nothing after stop(), not even what was waiting");
      await subscription.stop();
    });

    it("watch: a throwing handler is logged and the watch goes on", async () => {
      const { stream, subject } = await freshStream();
      const received: unknown[] = [];
      await bus.watch({ stream }, async (message) => {
        const value = decodeJson<number>(message.data);
        received.push(value);
        if (value === 1) throw new Error("handler broke");
      });
      const syncThrows: unknown[] = [];
      await bus.watch({ stream }, (message) => {
        syncThrows.push(decodeJson(message.data));
        throw new Error("sync handler broke");
      });
      for (const n of [1, 2, 3]) await bus.publish(subject(), encodeJson(n));
      await waitFor("all three", () => received.length === 3 && syncThrows.length === 3);
      assert.deepEqual(received, [1, 2, 3]);
      const failures = logged.filter((entry) => entry.msg === "bus watch handler failed");
      assert.equal(failures.length, 4);
      assert.ok(failures.every((entry) => entry.level === "error"));
      const first = failures.find((entry) => (entry.obj as { err?: Error }).err?.message === "handler broke");
      assert.deepEqual(
        { ...first?.obj, err: undefined },
        { err: undefined, stream, subject: subject(), seq: 1 },
      );
    });

    it("watch: rejects for a stream that does not exist", async () => {
      await assert.rejects(
        bus.watch({ stream: `T_MISSING_${randomId()}` }, () => {}),
        /not found/,
      );
    });

    it("pending() counts stored, in-flight and settled messages", async () => {
      const { stream, durable, subject } = await freshStream();
      const started = deferred();
      const release = deferred();
      await bus.consume({ stream, durable, maxInFlight: 1 }, async () => {
        started.resolve();
        await release.promise;
      });
      for (let i = 0; i < 3; i++) await bus.publish(subject(), encodeJson(i));
      await started.promise;
      assert.equal(await bus.pending(stream, durable), 3);
      release.resolve();
      await waitFor("all acked", pendingIs(stream, durable, 0));
    });
  });
}

busContract("memory bus", async (logger) => ({ bus: createMemoryBus({ logger }), cleanup: async () => {} }));

busContract("memory bus with dataDir", async (logger) => {
  const dataDir = await mkdtemp(join(tmpdir(), "gw-bus-"));
  return {
    bus: createMemoryBus({ dataDir, logger }),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  busContract("nats bus", async (logger) => {
    const bus = await createNatsBus({
      url: natsUrl,
      name: "bus-contract-test",
      publishTimeoutMs: 2_000,
      logger,
    });
    return { bus, cleanup: (streams) => deleteNatsStreams(natsUrl, streams) };
  });
} else {
  describe("nats bus", () => {
    it.skip("NATS_URL not set");
  });
}
