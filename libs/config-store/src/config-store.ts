import type { PrismaClient, ProjectToken } from "@gw/db";
import { toBudgets, toSpendGroup, toTokenLimits } from "./budget-rows.js";
import { toModelConfig, toRoutingConfig } from "./map-rows.js";
import { TtlCache } from "./ttl-cache.js";
import type { ModelConfig, ProjectConfig, RuntimeSettings, SpendGroupConfig, TokenConfig } from "./types.js";

/**
 * Read-through cache of the configuration the hot path needs (tokens, projects with their models
 * and budgets). Entries live `ttlMs`; `invalidate()` drops them at once and is wired to the bus's
 * `config.changed` by the services (`watchConfigChanges`), so a change is seen everywhere without
 * waiting for the TTL.
 * Unknown tokens are cached briefly too, so a client hammering with a bad token costs few queries.
 */
export interface ConfigStore {
  tokenByHash(tokenHash: string): Promise<TokenConfig | null>;
  projectById(projectId: string): Promise<ProjectConfig | null>;
  /** For `/projects/{slug}/v1/*`; null when no project has that slug. */
  projectBySlug(slug: string): Promise<ProjectConfig | null>;
  /** Any model by id, assigned to a project or not (the `llm` policy's routing model). */
  modelById(modelId: string): Promise<ModelConfig | null>;
  /** A token by id, revoked ones included (budget scopes of a call already admitted still apply). */
  tokenById(tokenId: string): Promise<TokenConfig | null>;
  /** Every spend group (one cached list: groups are few and every request walks the chain). */
  spendGroups(): Promise<SpendGroupConfig[]>;
  /** The settings the services apply at run time (timeout, log level). */
  runtimeSettings(): Promise<RuntimeSettings>;
  invalidate(): void;
}

export interface ConfigStoreOptions {
  prisma: PrismaClient;
  /** Default 5000 ms. */
  ttlMs?: number;
  /** How long an unknown token stays known-unknown, ms. Default 1000. */
  negativeTtlMs?: number;
  maxEntries?: number;
}

export function createConfigStore(options: ConfigStoreOptions): ConfigStore {
  const { prisma } = options;
  const ttlMs = options.ttlMs ?? 5000;
  const negativeTtlMs = options.negativeTtlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 50_000;
  const tokens = new TtlCache<TokenConfig | null>({ ttlMs, maxEntries });
  const projects = new TtlCache<ProjectConfig | null>({ ttlMs, maxEntries });
  const projectsBySlug = new TtlCache<ProjectConfig | null>({ ttlMs, maxEntries });
  const models = new TtlCache<ModelConfig | null>({ ttlMs, maxEntries });
  const tokensById = new TtlCache<TokenConfig | null>({ ttlMs, maxEntries });
  const groups = new TtlCache<SpendGroupConfig[]>({ ttlMs, maxEntries: 1 });
  const settings = new TtlCache<RuntimeSettings>({ ttlMs, maxEntries: 1 });

  async function loadProject(where: { id: string } | { slug: string }): Promise<ProjectConfig | null> {
    const row = await prisma.project.findUnique({
      where,
      include: { models: { include: { model: true }, orderBy: { position: "asc" } } },
    });
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      slug: row.slug,
      defaultTimeoutMs: row.defaultTimeoutMs,
      policies: row.policies,
      budgets: toBudgets(row.budgets),
      spendGroupId: row.spendGroupId,
      routing: toRoutingConfig(row.routing),
      models: row.models.map((assignment) => toModelConfig(assignment.model)),
    };
  }

  return {
    tokenByHash(tokenHash) {
      return tokens.get(
        tokenHash,
        async () => {
          const row = await prisma.projectToken.findUnique({ where: { tokenHash } });
          return row && !row.revokedAt ? toTokenConfig(row) : null;
        },
        (token) => (token ? ttlMs : negativeTtlMs),
      );
    },
    projectById(projectId) {
      return projects.get(projectId, () => loadProject({ id: projectId }));
    },
    modelById(modelId) {
      return models.get(modelId, async () => {
        const row = await prisma.model.findUnique({ where: { id: modelId } });
        return row ? toModelConfig(row) : null;
      });
    },
    tokenById(tokenId) {
      return tokensById.get(tokenId, async () => {
        const row = await prisma.projectToken.findUnique({ where: { id: tokenId } });
        return row ? toTokenConfig(row) : null;
      });
    },
    spendGroups() {
      return groups.get("all", async () => (await prisma.spendGroup.findMany()).map(toSpendGroup));
    },
    runtimeSettings() {
      return settings.get("global", async () =>
        toRuntimeSettings((await prisma.setting.findUnique({ where: { id: "global" } }))?.value),
      );
    },
    projectBySlug(slug) {
      return projectsBySlug.get(
        slug,
        () => loadProject({ slug }),
        (project) => (project ? ttlMs : negativeTtlMs),
      );
    },
    invalidate() {
      tokens.clear();
      projects.clear();
      projectsBySlug.clear();
      models.clear();
      tokensById.clear();
      groups.clear();
      settings.clear();
    },
  };
}

function toTokenConfig(row: ProjectToken): TokenConfig {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    tags: (row.tags ?? {}) as Record<string, string>,
    extraProjectIds: row.extraProjectIds ?? [],
    limits: toTokenLimits(row.limits),
  };
}

const LOG_LEVELS = new Set(["error", "warn", "info", "debug"]);

function toRuntimeSettings(value: unknown): RuntimeSettings {
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const timeout = v.defaultTimeoutMs;
  return {
    defaultTimeoutMs:
      typeof timeout === "number" && Number.isInteger(timeout) && timeout > 0 ? timeout : null,
    logLevel:
      typeof v.logLevel === "string" && LOG_LEVELS.has(v.logLevel)
        ? (v.logLevel as RuntimeSettings["logLevel"])
        : null,
  };
}
