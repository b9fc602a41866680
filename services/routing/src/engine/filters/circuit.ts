import { defineFilter } from "./filter.js";

/**
 * An open circuit means the model failed too often recently: it gets no traffic until the open
 * period ends and it turns half_open (then the `health` policy tries it after healthy models).
 */
export const circuitFilter = defineFilter("circuit", (model, context) => {
  const health = context.health.get(model.id);
  if (health?.circuit !== "open") return null;
  const remainingMs = health.openUntil !== undefined ? Math.max(0, health.openUntil - context.now) : null;
  return {
    excluded: remainingMs !== null ? `circuit open for another ${remainingMs} ms` : "circuit open",
    details: {
      circuit: health.circuit,
      errorRate: health.errorRate,
      calls: health.calls,
      openUntil: health.openUntil ?? null,
      remainingMs,
    },
  };
});
