/**
 * Rough cost of one 4-key `reserve` (a project, token, model and group scope): sequential calls,
 * latency percentiles. Memory always; Redis when REDIS_URL is set (keys under a random prefix,
 * deleted afterwards).
 *
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx libs/counters/scripts/bench-reserve.ts [calls]
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { type CounterStore, createMemoryCounterStore, createRedisCounterStore } from "../src/index.js";

const calls = Number(process.argv[2] ?? 2000);

async function bench(name: string, store: CounterStore): Promise<void> {
  const keys = ["project", "token", "model", "group"].map((scope) => `bench:${scope}:${randomUUID()}`);
  const entries = keys.map((key) => ({ key, amount: 1_000, limit: 1e15, ttlMs: 60_000 }));
  for (let i = 0; i < 200; i++) await store.reserve(entries); // warm-up: connection, script cache, JIT
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await store.reserve(entries);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3);
  const mean = (samples.reduce((sum, value) => sum + value, 0) / samples.length).toFixed(3);
  console.log(
    `${name}: ${calls} sequential 4-key reserves, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, mean ${mean} ms`,
  );
  await store.delete(keys);
  await store.close();
}

await bench("memory", createMemoryCounterStore());
const redisUrl = process.env.REDIS_URL;
if (redisUrl) {
  await bench(
    "redis",
    createRedisCounterStore({ url: redisUrl, keyPrefix: `counters-bench:${randomUUID()}:` }),
  );
} else {
  console.log("redis: skipped (REDIS_URL is not set)");
}
