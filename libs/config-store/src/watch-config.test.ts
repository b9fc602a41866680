import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { afterEach, describe, it } from "node:test";
import { type Bus, createMemoryBus, createNatsBus, encodeJson, Streams, Subjects } from "@gw/bus";
import { ConfigChanged } from "@gw/proto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { ConfigStore } from "./config-store.js";
import { watchConfigChanges } from "./watch-config.js";

/** The store is what is under test here: a fake that counts `invalidate()` calls. */
function countingStore(): ConfigStore & { invalidations: number } {
  const unused = () => Promise.reject(new Error("not used by watchConfigChanges"));
  const store = {
    invalidations: 0,
    tokenByHash: unused,
    projectById: unused,
    projectBySlug: unused,
    modelById: unused,
    tokenById: unused,
    spendGroups: unused,
    runtimeSettings: unused,
    invalidate() {
      store.invalidations++;
    },
  };
  return store;
}

function recordingLogger() {
  const entries: Array<{ level: "warn" | "debug"; obj: object; msg: string }> = [];
  return {
    entries,
    warn: (obj: object, msg: string) => entries.push({ level: "warn", obj, msg }),
    debug: (obj: object, msg: string) => entries.push({ level: "debug", obj, msg }),
  };
}

/** The payload the admin API publishes. */
function configChanged(entity: string, entityId: string): Uint8Array {
  const message: ConfigChanged = {
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    entity,
    entityId,
    action: "updated",
  };
  return encodeJson(ConfigChanged.toJSON(message));
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await delay(10);
  }
}

describe("watchConfigChanges (memory bus)", () => {
  let bus: Bus;

  afterEach(async () => {
    await bus.close();
  });

  it("invalidates the store on config.changed and logs which entity changed", async () => {
    bus = createMemoryBus();
    const store = countingStore();
    const logger = recordingLogger();
    // No stream created beforehand: watchConfigChanges creates CONFIG itself.
    await watchConfigChanges(bus, store, logger);
    await bus.publish(Subjects.configChanged, configChanged("project", "p-1"));
    await waitFor("one invalidation", () => store.invalidations === 1);
    await bus.publish(Subjects.configChanged, configChanged("token", "t-1"));
    await waitFor("two invalidations", () => store.invalidations === 2);
    assert.deepEqual(
      logger.entries.map(({ level, obj }) => [level, (obj as { entity: string }).entity]),
      [
        ["debug", "project"],
        ["debug", "token"],
      ],
    );
    assert.equal((logger.entries[0]!.obj as { entityId: string }).entityId, "p-1");
  });

  it("invalidates on a malformed message too, with a warning", async () => {
    bus = createMemoryBus();
    const store = countingStore();
    const logger = recordingLogger();
    await watchConfigChanges(bus, store, logger);
    for (const data of ["not json", "null", "[1]"]) {
      await bus.publish(Subjects.configChanged, new TextEncoder().encode(data));
    }
    await waitFor("three invalidations", () => store.invalidations === 3);
    assert.deepEqual(
      logger.entries.map((entry) => entry.level),
      ["warn", "warn", "warn"],
    );
    // An empty object is valid proto3 JSON (every field at its default).
    await bus.publish(Subjects.configChanged, encodeJson({}));
    await waitFor("four invalidations", () => store.invalidations === 4);
  });

  it("works without a logger, ignores other config subjects, and stops with its subscription", async () => {
    bus = createMemoryBus();
    const store = countingStore();
    const subscription = await watchConfigChanges(bus, store);
    await bus.publish("config.other", encodeJson({}));
    await bus.publish(Subjects.configChanged, encodeJson("not an object"));
    await waitFor("one invalidation", () => store.invalidations === 1);
    await subscription.stop();
    await bus.publish(Subjects.configChanged, configChanged("model", "m-1"));
    await delay(50);
    assert.equal(store.invalidations, 1);
  });

  it("every watching store is invalidated (replicas), an existing CONFIG stream is kept", async () => {
    bus = createMemoryBus();
    await bus.ensureStream(Streams.CONFIG);
    await bus.publish(Subjects.configChanged, configChanged("project", "before"));
    const replicas = [countingStore(), countingStore(), countingStore()];
    for (const store of replicas) await watchConfigChanges(bus, store);
    await bus.publish(Subjects.configChanged, configChanged("project", "p-2"));
    await waitFor("every replica", () => replicas.every((store) => store.invalidations === 1));
    await delay(50);
    assert.deepEqual(
      replicas.map((store) => store.invalidations),
      [1, 1, 1],
    );
  });
});

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  describe("watchConfigChanges (nats bus)", () => {
    it("invalidates every replica's store within a second", async () => {
      const namespace = `cs${randomBytes(6).toString("hex")}`;
      const buses = await Promise.all(
        [1, 2].map((n) => createNatsBus({ url: natsUrl, name: `config-watch-test-${n}`, namespace })),
      );
      try {
        const replicas = [countingStore(), countingStore()];
        await Promise.all(replicas.map((store, i) => watchConfigChanges(buses[i]!, store)));
        const publishedAt = Date.now();
        await buses[0]!.publish(Subjects.configChanged, configChanged("project", "p-1"));
        await waitFor("both replicas", () => replicas.every((store) => store.invalidations === 1), 1_000);
        assert.ok(Date.now() - publishedAt < 1_000);
        await delay(200);
        assert.deepEqual(
          replicas.map((store) => store.invalidations),
          [1, 1],
        );
      } finally {
        await Promise.all(buses.map((bus) => bus.close()));
        const nc = await connect({ servers: natsUrl.split(",") });
        await (await jetstreamManager(nc)).streams
          .delete(`${namespace}_${Streams.CONFIG.name}`)
          .catch(() => false);
        await nc.close();
      }
    });
  });
} else {
  describe("watchConfigChanges (nats bus)", () => {
    it.skip("NATS_URL not set");
  });
}
