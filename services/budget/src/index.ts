export { BUDGET_THROTTLED_EVENTS, type BudgetDeps, DEFAULT_RESERVATION_TTL_MS } from "./deps.js";
export { type ExpirySweeper, startExpirySweeper } from "./expiry-sweeper.js";
export { createBudgetHandlers } from "./handlers.js";
