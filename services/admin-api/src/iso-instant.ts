import { z } from "zod";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const DAY_MS = 24 * 3_600_000;

/**
 * A query parameter holding an ISO 8601 date or date-time, as a Date. A date-time without a zone
 * is UTC (the server's clock of record). A date alone is a whole UTC day, so `from=to=2026-03-01`
 * is that one day, whichever way the route compares its end:
 * - `start`: 00:00:00.000 of that day;
 * - `end-inclusive` (compared with <=, as the audit log and the inbox do): 23:59:59.999;
 * - `end-exclusive` (half-open ranges, as usage reports): the next midnight.
 */
export function isoInstant(dateOnlyAs: "start" | "end-inclusive" | "end-exclusive") {
  return z
    .string()
    .trim()
    .refine(
      (value) => DATE_ONLY.test(value) || DATE_TIME.test(value),
      "must be an ISO 8601 date or date-time",
    )
    .transform((value, context) => {
      const dateOnly = DATE_ONLY.test(value);
      const text = dateOnly ? `${value}T00:00:00.000Z` : ZONE.test(value) ? value : `${value}Z`;
      const date = new Date(text);
      // `2026-02-30` parses to nothing in V8; the round trip catches any other rollover.
      if (Number.isNaN(date.getTime()) || (dateOnly && date.toISOString().slice(0, 10) !== value)) {
        context.addIssue({ code: "custom", message: "is not a valid date" });
        return z.NEVER;
      }
      if (!dateOnly || dateOnlyAs === "start") return date;
      return new Date(date.getTime() + DAY_MS - (dateOnlyAs === "end-inclusive" ? 1 : 0));
    });
}
