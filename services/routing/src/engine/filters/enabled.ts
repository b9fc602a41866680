import { defineFilter } from "./filter.js";

/** A disabled model stays in the project but is never routed to. */
export const enabledFilter = defineFilter("enabled", (model) =>
  model.enabled ? null : { excluded: "model is disabled", details: { enabled: false } },
);
