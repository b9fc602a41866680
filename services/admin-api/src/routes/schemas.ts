import { z } from "zod";
import { passwordProblem } from "../auth/passwords.js";

/** Shared pieces of the request schemas. Emails are compared lower-cased. */
export const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "must be an email address" }));

export const password = z.string().superRefine((value, context) => {
  const problem = passwordProblem(value);
  if (problem) context.addIssue({ code: "custom", message: problem });
});

export const credentials = z.strictObject({ email, password: z.string().min(1, "is required") });
export const newAccount = z.strictObject({ email, password });
