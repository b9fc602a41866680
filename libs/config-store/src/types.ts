/** Configuration as the hot path sees it: plain objects, prices as numbers, no Prisma types. */
export interface ModelConfig {
  id: string;
  provider: string;
  /** Model name sent upstream (the id when none is configured). */
  upstreamModel: string;
  apiKeyEncrypted: string | null;
  inputPrice: number | null;
  outputPrice: number | null;
  cachePrice: number | null;
  contextWindow: number | null;
  maxOutputTokens: number | null;
  capabilities: string[];
  enabled: boolean;
  baseUrl: string | null;
  /** Volume tiers (DESIGN.md section 4): prices by the model's tokens in the current calendar month. */
  pricingTiers: PricingTier[];
  /** Unix seconds; the `created` of `GET /v1/models`. */
  createdAt: number;
  /** The model's own limits: a model over one is excluded by routing. */
  limits: BudgetConfig[];
}

export const BUDGET_METRICS = ["cost", "calls", "input_tokens", "output_tokens", "total_tokens"] as const;
export type BudgetMetric = (typeof BUDGET_METRICS)[number];

/** UTC calendar windows; weekly starts Monday 00:00 UTC. */
export const PERIOD_WINDOWS = ["hourly", "daily", "weekly", "monthly", "yearly"] as const;
/** Sliding windows of a fixed length (month = 30 days); see docs/BUDGETS.md for their precision. */
export const ROLLING_WINDOWS = ["second", "minute", "hour", "day", "week", "month"] as const;
export type PeriodWindow = (typeof PERIOD_WINDOWS)[number];
export type RollingWindow = (typeof ROLLING_WINDOWS)[number];

/** One limit on one metric over one window: a project budget, a token, model or spend-group limit. */
export type BudgetConfig = {
  metric: BudgetMetric;
  /** In the metric's unit; USD for cost. */
  limit: number;
  onExhausted: "block";
  /** Percent at which budget.threshold fires; default 80. */
  warnAt: number;
} & (
  | { windowType: "period"; windowSize: PeriodWindow }
  | { windowType: "rolling"; windowSize: RollingWindow }
);

/**
 * A token's limit. `extend` (default) is enforced in addition to the project's budgets; `override`
 * replaces, for calls with this token, the project budget of the same metric and window (that
 * budget still counts the token's usage, it just does not refuse it).
 */
export type TokenLimitConfig = BudgetConfig & { mode: "extend" | "override" };

/** A spend group: its limits bind every request through its projects or tokens and its descendants'. */
export interface SpendGroupConfig {
  id: string;
  name: string;
  limits: BudgetConfig[];
  projectIds: string[];
  tokenIds: string[];
  parentGroupId: string | null;
}

export interface PricingTier {
  /** The tier applies once the model's monthly tokens reach this. */
  fromTokens: number;
  /** USD per 1,000 tokens. */
  inputPrice: number;
  outputPrice: number;
  cachePrice?: number;
}

/**
 * How long a request waits for the `llm` policy's routing model when `routing.llm.timeoutMs` is
 * unset. One value for the policy, the routing-model caller and ingress's Route deadline.
 */
export const DEFAULT_ROUTING_MODEL_TIMEOUT_MS = 3000;

/** The project's `routing` field. */
export interface ProjectRoutingConfig {
  /** The `llm` policy: the routing model asked to rank candidates. */
  llm?: { modelId: string; fallbackModelIds?: string[]; prompt?: string; timeoutMs?: number };
  /** `random` policy weights by model id (default 1). */
  weights?: Record<string, number>;
  /** Health settings overrides (names of `HealthSettings` in services/routing/src/health/types.ts). */
  health?: Record<string, number>;
  /** Upstream attempts per request, fallbacks included (default 3). */
  maxAttempts?: number;
}

export interface ProjectConfig {
  id: string;
  name: string;
  slug: string;
  defaultTimeoutMs: number | null;
  policies: string[];
  budgets: BudgetConfig[];
  spendGroupId: string | null;
  routing: ProjectRoutingConfig;
  /** The project's models in the project's order. */
  models: ModelConfig[];
}

/**
 * The deployment settings the services apply while running (the management API's `/api/settings`;
 * null = not set there, the environment's value applies).
 */
export interface RuntimeSettings {
  /** Provider timeout when the project has none. */
  defaultTimeoutMs: number | null;
  logLevel: "error" | "warn" | "info" | "debug" | null;
}

export interface TokenConfig {
  id: string;
  projectId: string;
  name: string;
  tags: Record<string, string>;
  /** Other projects (ids) this token may use through `/projects/{slug}/v1/*`. */
  extraProjectIds: string[];
  limits: TokenLimitConfig[];
}
