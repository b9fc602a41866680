import { defineFilter } from "./filter.js";

/** The model's own limit is used up (read from the budget counters, ../../budget-state.ts): calls to it would be refused. */
export const budgetFilter = defineFilter("budget", (model, context) =>
  context.budgetExhausted.has(model.id)
    ? { excluded: "model budget exhausted", details: { budgetExhausted: true } }
    : null,
);
