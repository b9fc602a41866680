import { defineFilter } from "./filter.js";

/** The model's own budget is used up (the budget service says which): calls to it would be refused. */
export const budgetFilter = defineFilter("budget", (model, context) =>
  context.budgetExhausted.has(model.id)
    ? { excluded: "model budget exhausted", details: { budgetExhausted: true } }
    : null,
);
