import { defineFilter } from "./filter.js";

/** After a 429 the upstream asked us to wait: calling it before then only earns another 429. */
export const cooldownFilter = defineFilter("cooldown", (model, context) => {
  const cooldownUntil = context.health.get(model.id)?.cooldownUntil;
  if (cooldownUntil === undefined || cooldownUntil <= context.now) return null;
  const remainingMs = cooldownUntil - context.now;
  return {
    excluded: `rate limited: cooling down for ${remainingMs} ms`,
    details: { cooldownUntil, now: context.now, remainingMs },
  };
});
