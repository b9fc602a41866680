import { randomUUID } from "node:crypto";
import type { BusEvent, EventPublisher } from "@gw/accounting";
import type {
  BudgetConfig,
  ConfigStore,
  ModelConfig,
  ProjectConfig,
  SpendGroupConfig,
  TokenConfig,
} from "@gw/config-store";
import { type CounterStore, createMemoryCounterStore, createRedisCounterStore } from "@gw/counters";
import { createLogger } from "@gw/logger";
import { BudgetServiceService, type ReserveRequest, type UsageAmounts } from "@gw/proto";
import { type AsyncClient, inProcessClient } from "@gw/rpc";
import { modelConfig, projectConfig, tokenConfig } from "@gw/testing";
import { Redis } from "ioredis";
import { createBudgetHandlers } from "../src/handlers.js";

/**
 * The budget service's handlers on a real counter store (memory, or Redis when REDIS_URL is set),
 * with the configuration held in maps (it is the service's input, read through the same
 * ConfigStore interface as in production) and a clock the test moves.
 */
export type BudgetClient = AsyncClient<typeof BudgetServiceService>;

export interface BudgetHarness {
  /** The service as standalone calls it: the generated interface, in-process. */
  handlers: BudgetClient;
  counters: CounterStore;
  config: TestConfig;
  clock: { now: number };
  events: BusEvent[];
  /** Another replica: its own handlers (and, on Redis, its own connection) on the same counters. */
  replica(): Promise<BudgetClient>;
  close(): Promise<void>;
}

export interface TestConfig {
  projects: Map<string, ProjectConfig>;
  tokens: Map<string, TokenConfig>;
  models: Map<string, ModelConfig>;
  groups: SpendGroupConfig[];
}

export type StoreKind = "memory" | "redis";

export function storeKinds(): StoreKind[] {
  return process.env.REDIS_URL ? ["memory", "redis"] : ["memory"];
}

export async function startHarness(
  kind: StoreKind,
  options: { reservationTtlMs?: number } = {},
): Promise<BudgetHarness> {
  const clock = { now: Date.parse("2026-11-24T10:00:00.000Z") };
  const config: TestConfig = { projects: new Map(), tokens: new Map(), models: new Map(), groups: [] };
  const events: BusEvent[] = [];
  const prefix = `budget-test-${randomUUID().slice(0, 8)}:`;
  const open = (): CounterStore =>
    kind === "redis"
      ? createRedisCounterStore({ url: process.env.REDIS_URL!, keyPrefix: prefix, commandTimeoutMs: 2000 })
      : shared;
  const shared = kind === "memory" ? createMemoryCounterStore({ now: () => clock.now }) : (null as never);
  const stores: CounterStore[] = [];
  const handlersOn = (counters: CounterStore) =>
    clientOf({
      configStore: configStoreOf(config),
      counters,
      events: recorder(events),
      logger: createLogger({ name: "budget-test", level: "silent" }),
      now: () => clock.now,
      ...(options.reservationTtlMs ? { reservationTtlMs: options.reservationTtlMs } : {}),
    });
  const counters = open();
  stores.push(counters);
  return {
    handlers: handlersOn(counters),
    counters,
    config,
    clock,
    events,
    async replica() {
      const store = open();
      if (store !== counters) stores.push(store);
      return handlersOn(store);
    },
    async close() {
      await Promise.all(stores.map((store) => store.close()));
      if (kind === "redis") await deleteKeys(process.env.REDIS_URL!, prefix);
    },
  };
}

/** Handlers behind the generated client interface, as standalone wires them. */
export function clientOf(deps: Parameters<typeof createBudgetHandlers>[0]): BudgetClient {
  return inProcessClient(BudgetServiceService, createBudgetHandlers(deps));
}

/** Leave nothing behind in the shared Redis: a run's keys live up to two months otherwise. */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

function configStoreOf(config: TestConfig): ConfigStore {
  return {
    tokenByHash: async () => null,
    projectById: async (id) => config.projects.get(id) ?? null,
    projectBySlug: async (slug) => [...config.projects.values()].find((p) => p.slug === slug) ?? null,
    modelById: async (id) => config.models.get(id) ?? null,
    tokenById: async (id) => config.tokens.get(id) ?? null,
    spendGroups: async () => config.groups,
    runtimeSettings: async () => ({ defaultTimeoutMs: null, logLevel: null }),
    invalidate() {},
  };
}

function recorder(events: BusEvent[]): EventPublisher {
  return { publish: (event) => events.push(event) };
}

export function budget(overrides: Partial<BudgetConfig> = {}): BudgetConfig {
  return {
    metric: "calls",
    limit: 50,
    windowType: "period",
    windowSize: "monthly",
    onExhausted: "block",
    warnAt: 80,
    ...overrides,
  } as BudgetConfig;
}

export function addProject(config: TestConfig, overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  const project = projectConfig({ id: `proj_${randomUUID().slice(0, 8)}`, ...overrides });
  config.projects.set(project.id, project);
  return project;
}

export function addToken(
  config: TestConfig,
  projectId: string,
  limits: TokenConfig["limits"] = [],
): TokenConfig {
  const token = tokenConfig({ id: `tok_${randomUUID().slice(0, 8)}`, projectId, limits });
  config.tokens.set(token.id, token);
  return token;
}

export function addModel(config: TestConfig, overrides: Partial<ModelConfig> = {}): ModelConfig {
  const model = modelConfig(overrides.id ?? `model-${randomUUID().slice(0, 8)}`, overrides);
  config.models.set(model.id, model);
  return model;
}

export const ONE_CALL: UsageAmounts = { calls: 1, inputTokens: 10, outputTokens: 20, costMicros: 50 };

export function reserveRequest(
  ids: { projectId: string; tokenId?: string; modelId?: string },
  worstCase: UsageAmounts = ONE_CALL,
): ReserveRequest {
  return {
    reservationId: randomUUID(),
    projectId: ids.projectId,
    tokenId: ids.tokenId ?? "",
    modelId: ids.modelId ?? "",
    worstCase,
  };
}

/**
 * Events are published after the answer: wait until `count` events named `name` (of `projectId`
 * when given) arrived, or the timeout passed; returns what arrived.
 */
export async function eventsNamed(
  events: BusEvent[],
  name: string,
  options: { projectId?: string; count?: number; timeoutMs?: number } = {},
): Promise<BusEvent[]> {
  const count = options.count ?? 1;
  const deadline = Date.now() + (options.timeoutMs ?? 2000);
  for (;;) {
    const found = events.filter(
      (event) =>
        event.event === name && (options.projectId === undefined || event.projectId === options.projectId),
    );
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
