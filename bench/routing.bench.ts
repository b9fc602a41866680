/**
 * Routing decision cost: one `Route` for a project of N models (default 50), measured three ways:
 *   1. the engine alone (`decideRoute`: filters + policies + trace), health given;
 *   2. the `Route` handler with the in-process counter store (health snapshot + engine);
 *   3. the `Route` handler with Redis health (REDIS_URL set), i.e. one Redis round trip more.
 * Policies: health, cheapest (with pricing tiers), performance, random, capability, context.
 *
 *   npm run bench:routing -- [--models 50] [--calls 20000]
 */
import { parseArgs } from "node:util";
import type { ModelConfig, ProjectConfig } from "@gw/config-store";
import { createCounterStore } from "@gw/counters";
import { createLogger } from "@gw/logger";
import type { RouteRequest } from "@gw/proto";
import { decideRoute } from "../services/routing/src/engine/index.js";
import { createHealthStore } from "../services/routing/src/health/index.js";
import { route } from "../services/routing/src/route.js";
import { percentiles } from "./lib/stats.js";

const { values } = parseArgs({
  options: { models: { type: "string", default: "50" }, calls: { type: "string", default: "20000" } },
});
const modelCount = Math.min(Math.max(Number(values.models), 1), 1000);
const calls = Math.min(Math.max(Number(values.calls), 100), 1_000_000);
const POLICIES = ["health", "cheapest", "performance", "random", "capability", "context"];

const models: ModelConfig[] = Array.from({ length: modelCount }, (_, i) => ({
  id: `model-${i}`,
  provider: ["openai", "anthropic", "gemini", "mistral"][i % 4]!,
  upstreamModel: `upstream-${i}`,
  apiKeyEncrypted: null,
  inputPrice: 0.0005 + (i % 7) * 0.0003,
  outputPrice: 0.0015 + (i % 5) * 0.0004,
  cachePrice: null,
  contextWindow: 32_000 + (i % 4) * 32_000,
  maxOutputTokens: 4096,
  capabilities: i % 3 === 0 ? ["chat", "tools", "vision"] : ["chat", "tools"],
  enabled: i % 10 !== 9,
  baseUrl: null,
  pricingTiers: [{ fromTokens: 1_000_000, inputPrice: 0.0004, outputPrice: 0.001 }],
  createdAt: 0,
  limits: [],
}));
const project: ProjectConfig = {
  id: "proj_bench",
  name: "bench",
  slug: "bench",
  defaultTimeoutMs: null,
  policies: POLICIES,
  budgets: [],
  spendGroupId: null,
  routing: {},
  models,
};
const features = {
  estimatedInputTokens: 1200,
  requiredCapabilities: ["functionCalling"],
  maxTokens: 500,
  conversationId: "",
  promptExcerpt: "",
  tokenId: "tok_bench",
  traceId: "trace",
};

async function measure(name: string, once: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(2000, calls / 5); i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await once();
    samples.push((performance.now() - started) * 1000);
  }
  const p = percentiles(samples);
  console.log(
    `${name.padEnd(44)} p50 ${p.p50.toFixed(1).padStart(7)} µs   p99 ${p.p99.toFixed(1).padStart(7)} µs   mean ${p.mean.toFixed(1).padStart(7)} µs`,
  );
}

const memory = createCounterStore({});
const memoryHealth = createHealthStore(memory, { keyPrefix: "bench-health:" });
// Some history so the health and performance policies have numbers to work with.
for (const m of models.slice(0, 20))
  for (let i = 0; i < 10; i++)
    await memoryHealth.record({
      modelId: m.id,
      projectId: project.id,
      kind: i % 4 === 0 ? "error" : "success",
      status: i % 4 === 0 ? 500 : 200,
      latencyMs: 100 + (i % 5) * 40,
    });
const health = await memoryHealth.snapshot(models.map((m) => m.id));
const request: RouteRequest = {
  projectId: project.id,
  tokenId: features.tokenId,
  estimatedInputTokens: features.estimatedInputTokens,
  requiredCapabilities: features.requiredCapabilities,
  maxTokens: features.maxTokens,
  conversationId: "",
  requestedModel: "any",
  traceId: "trace",
  promptExcerpt: "",
};
const logger = createLogger({ name: "bench", level: "silent" });
const configStore = {
  tokenByHash: async () => null,
  projectById: async () => project,
  projectBySlug: async () => project,
  modelById: async () => null,
  tokenById: async () => null,
  spendGroups: async () => [],
  runtimeSettings: async () => ({ defaultTimeoutMs: null, logLevel: null }),
  invalidate() {},
};
const events = { publish() {} };

console.log(
  `Routing decision, ${modelCount} models (${models.filter((m) => m.enabled).length} enabled), policies ${POLICIES.join(", ")}, ${calls} calls each, node ${process.version}`,
);
await measure("engine only (decideRoute)", () =>
  decideRoute({
    project,
    features,
    health,
    budgetExhausted: new Set(),
    monthlyTokens: new Map([["model-3", 2_000_000]]),
    now: Date.now(),
    random: Math.random,
  }),
);
await measure("Route handler, in-process health (standalone)", () =>
  route({ configStore, health: memoryHealth, counters: memory, events, logger }, request),
);
if (process.env.REDIS_URL) {
  const redis = createCounterStore({ redisUrl: process.env.REDIS_URL, keyPrefix: `bench-${process.pid}:` });
  const redisHealth = createHealthStore(redis);
  await measure("Route handler, Redis health (distributed)", () =>
    route({ configStore, health: redisHealth, counters: redis, events, logger }, request),
  );
  await redis.close();
} else console.log("Route handler, Redis health: skipped (REDIS_URL not set)");
await memory.close();
