export {
  amountOf,
  amountsByMetric,
  type BudgetCounter,
  budgetCounter,
  limitUnits,
  toBudgetUnits,
  type UsageAmounts,
  windowLabel,
} from "./counter-entries.js";
export { collectScopes, groupChain, type ScopeBudget, type ScopeInput, type ScopeLevel } from "./scopes.js";
export { monthlyVolumeCounter, type VolumeCounter } from "./volume.js";
export {
  type PeriodSpan,
  periodWindow,
  previousPeriodWindow,
  ROLLING_LENGTH_MS,
  slidingWindowOf,
} from "./windows.js";
