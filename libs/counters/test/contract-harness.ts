import { randomUUID } from "node:crypto";
import { after, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { type CounterStore, createMemoryCounterStore, createRedisCounterStore } from "../src/index.js";

/**
 * What the contract files share: one store under test per factory call, run against the memory store
 * and (when REDIS_URL is set) Redis with a random key prefix whose keys are deleted afterwards.
 */
export interface ContractHarness {
  store: CounterStore;
  /** Let `ms` elapse for TTLs: moves a fake clock (memory) or sleeps (Redis). */
  advance(ms: number): Promise<void>;
  /**
   * Another client on the same data (Redis: a second connection with the same prefix; memory: the
   * same store, whose close() is then a no-op).
   */
  peer(): CounterStore;
  /** Redis only: the raw prefix and a client without it, to inspect what the scripts stored. */
  raw?: { keyPrefix: string; client: () => Redis };
}

export type ContractFactory = () => ContractHarness;

/** Short enough to keep the Redis run fast, long enough to read the TTL back before it expires. */
export const TTL_MS = 150;

/** A unique key or id per test, so tests never see each other's state. */
export const unique = (label: string) => `${label}:${randomUUID().slice(0, 8)}`;

function memoryHarness(): ContractHarness {
  let clock = 1_700_000_000_000;
  const store = createMemoryCounterStore({ now: () => clock });
  return {
    store,
    advance: async (ms) => {
      clock += ms;
    },
    peer: () => ({ ...store, close: async () => {} }),
  };
}

/** Register `contract` for every store this run can reach. */
export function forEachStore(contract: (name: string, factory: ContractFactory) => void): void {
  contract("memory", memoryHarness);
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    it("CounterStore contract: redis", {
      skip: "REDIS_URL is not set; the Redis contract run is skipped",
    }, () => {});
    return;
  }
  // A random prefix per factory call isolates stores (hold bookkeeping is per prefix) and this
  // run from other runs and from real data on that Redis.
  const runPrefix = `counters-test:${randomUUID()}:`;
  const admins: Redis[] = [];
  let calls = 0;
  contract("redis", () => {
    const keyPrefix = `${runPrefix}${++calls}:`;
    return {
      store: createRedisCounterStore({ url: redisUrl, keyPrefix }),
      advance: (ms) => sleep(ms),
      peer: () => createRedisCounterStore({ url: redisUrl, keyPrefix }),
      raw: {
        keyPrefix,
        client: () => {
          const admin = new Redis(redisUrl);
          admins.push(admin);
          return admin;
        },
      },
    };
  });
  after(async () => {
    const admin = new Redis(redisUrl);
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(cursor, "MATCH", `${runPrefix}*`, "COUNT", 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== "0");
    await Promise.all([admin, ...admins].map((client) => client.quit()));
  });
}
