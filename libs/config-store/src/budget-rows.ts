import {
  BUDGET_METRICS,
  type BudgetConfig,
  type BudgetMetric,
  PERIOD_WINDOWS,
  type PeriodWindow,
  ROLLING_WINDOWS,
  type RollingWindow,
  type SpendGroupConfig,
  type TokenLimitConfig,
} from "./types.js";

/**
 * Budgets and limits are stored as JSON in three shapes (SPEC.md): project budgets
 * `{ metric, limit, windowType, windowSize, warnAt? }`, token limits `{ metric, limit, window, mode }`
 * and spend-group limits `{ metric, windowType, period, value }`. All become one BudgetConfig here.
 * Entries that are not well-formed are skipped: the management API validates writes, so this only
 * guards against hand-edited rows (and a skipped entry is logged by nobody, hence the strictness of
 * the API).
 */

const METRICS = new Set<string>(BUDGET_METRICS);
const PERIODS = new Set<string>(PERIOD_WINDOWS);
const ROLLINGS = new Set<string>(ROLLING_WINDOWS);

type Window = Pick<BudgetConfig, "windowType" | "windowSize">;

/**
 * The window of an entry. `windowType` + `windowSize` (or `period`, the spend-group name) when given;
 * otherwise a token limit's single `window`, whose period names (`daily`) and rolling names (`day`)
 * never overlap, so one field says both.
 */
export function toWindow(entry: Record<string, unknown>): Window | null {
  const size = entry.windowSize ?? entry.period ?? entry.window;
  if (typeof size !== "string") return null;
  const type = entry.windowType ?? (ROLLINGS.has(size) ? "rolling" : "period");
  if (type === "period" && PERIODS.has(size))
    return { windowType: "period", windowSize: size as PeriodWindow };
  if (type === "rolling" && ROLLINGS.has(size))
    return { windowType: "rolling", windowSize: size as RollingWindow };
  return null;
}

function toBudget(raw: unknown, limitField: "limit" | "value"): BudgetConfig | null {
  if (typeof raw !== "object" || raw === null) return null;
  const entry = raw as Record<string, unknown>;
  const metric = entry.metric;
  const limit = Number(entry[limitField] ?? entry.limit);
  const window = toWindow(entry);
  if (typeof metric !== "string" || !METRICS.has(metric) || !window) return null;
  if (!Number.isFinite(limit) || limit < 0) return null;
  const warnAt =
    typeof entry.warnAt === "number" && entry.warnAt > 0 && entry.warnAt <= 100 ? entry.warnAt : 80;
  return { metric: metric as BudgetMetric, limit, onExhausted: "block", warnAt, ...window } as BudgetConfig;
}

function list<T>(json: unknown, map: (entry: unknown) => T | null): T[] {
  if (!Array.isArray(json)) return [];
  return json.map(map).filter((entry): entry is T => entry !== null);
}

/** Project budgets and model limits. */
export function toBudgets(json: unknown): BudgetConfig[] {
  return list(json, (entry) => toBudget(entry, "limit"));
}

export function toTokenLimits(json: unknown): TokenLimitConfig[] {
  return list(json, (entry) => {
    const budget = toBudget(entry, "limit");
    if (!budget) return null;
    const mode = (entry as Record<string, unknown>).mode === "override" ? "override" : "extend";
    return { ...budget, mode };
  });
}

export function toSpendGroup(row: {
  id: string;
  name: string;
  limits: unknown;
  projectIds: string[];
  tokenIds: string[];
  parentGroupId: string | null;
}): SpendGroupConfig {
  return {
    id: row.id,
    name: row.name,
    limits: list(row.limits, (entry) => toBudget(entry, "value")),
    projectIds: row.projectIds,
    tokenIds: row.tokenIds,
    parentGroupId: row.parentGroupId,
  };
}
