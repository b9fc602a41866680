import type { RoutingFilter } from "../types.js";
import { budgetFilter } from "./budget.js";
import { capabilitiesFilter } from "./capabilities.js";
import { circuitFilter } from "./circuit.js";
import { contextFilter } from "./context.js";
import { cooldownFilter } from "./cooldown.js";
import { enabledFilter } from "./enabled.js";

export { defineFilter, type FilterVerdict } from "./filter.js";
export { budgetFilter, capabilitiesFilter, circuitFilter, contextFilter, cooldownFilter, enabledFilter };

/**
 * The hard constraints, in the order they run: static configuration first (enabled, what the
 * request needs), then the live state (budgets, rate-limit cooldowns, circuit breakers), so the
 * trace names the most fundamental reason a model was dropped.
 */
export const FILTERS: readonly RoutingFilter[] = [
  enabledFilter,
  capabilitiesFilter,
  contextFilter,
  budgetFilter,
  cooldownFilter,
  circuitFilter,
];
