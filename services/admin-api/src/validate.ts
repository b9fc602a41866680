import type { z } from "zod";
import { fromZodError } from "./errors.js";

/** Parse a request body (or query) with its schema: 400 naming the field at fault when it does not fit. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw fromZodError(result.error);
  return result.data;
}
