import { z } from "zod";
import { AdminErrors } from "../errors.js";
import { isoInstant } from "../iso-instant.js";
import { parseWith } from "../validate.js";

export const CALL_TYPES = ["completion", "routing", "guardrail"] as const;
export const OUTCOMES = ["success", "error", "budget_exceeded", "timeout", "blocked"] as const;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Without `from`, the report covers the 30 days before `to`. */
export const DEFAULT_SPAN_MS = 30 * 24 * 3_600_000;
/** Ten years: the longest range, so a timeline never exceeds about 520 (weekly) buckets. */
export const MAX_SPAN_MS = 3660 * 24 * 3_600_000;

/** A comma-separated list of ids; empty items are dropped, an empty list is refused. */
const idList = z
  .string()
  .transform((value) => [
    ...new Set(
      value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ])
  .refine((ids) => ids.length > 0, "must name at least one id")
  .refine((ids) => ids.length <= 500, "must name at most 500 ids");

const nonEmpty = z.string().trim().min(1, "must not be empty");

// Not strict: unknown query parameters (cache busters) are ignored.
export const usageQuery = z.object({
  from: isoInstant("start").optional(),
  to: isoInstant("end-exclusive").optional(),
  project: nonEmpty.optional(),
  projectIds: idList.optional(),
  model: nonEmpty.optional(),
  modelIds: idList.optional(),
  callType: z.enum(CALL_TYPES).optional(),
  outcome: z.enum(OUTCOMES).optional(),
  limit: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)
    .default(DEFAULT_LIMIT),
  offset: z.coerce
    .number()
    .int("must be a whole number")
    .min(0, "must not be negative")
    .max(1_000_000_000, "must be at most 1000000000")
    .default(0),
});

export type UsageQuery = z.infer<typeof usageQuery>;

/** The parsed query with its range resolved: `to` defaults to now, `from` to 30 days before `to`. */
export interface UsageRequest extends Omit<UsageQuery, "from" | "to"> {
  from: Date;
  to: Date;
}

export function parseUsageQuery(raw: unknown, now: number): UsageRequest {
  const query = parseWith(usageQuery, raw);
  const to = query.to ?? new Date(now);
  const from = query.from ?? new Date(to.getTime() - DEFAULT_SPAN_MS);
  if (from > to) throw AdminErrors.invalid("from: must not be after to.");
  if (to.getTime() - from.getTime() > MAX_SPAN_MS)
    throw AdminErrors.invalid("from: the range may span at most 3660 days.");
  return { ...query, from, to };
}
