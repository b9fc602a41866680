import { BUDGET_METRICS, PERIOD_WINDOWS, ROLLING_WINDOWS } from "@gw/config-store";
import { z } from "zod";
import { PROJECT_MEMBER_ROLES } from "../auth/permissions.js";
import { budgetEntry, warnAt } from "../routes/budget-schemas.js";

/**
 * Request bodies of `/api/projects`. The hot path reads budgets, routing and token limits leniently
 * (a malformed entry is skipped silently: libs/config-store/src/budget-rows.ts), so everything it
 * reads is checked strictly here, where the caller can still be told which field is wrong. Bounds
 * are also column bounds (int4), so a value that passes never becomes a 500 on write.
 */

export const ROUTING_POLICIES = [
  "order",
  "health",
  "cheapest",
  "random",
  "performance",
  "context",
  "capability",
  "llm",
] as const;

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

const MAX_INT4 = 2_147_483_647;

const positiveInt = z.int("must be an integer").positive("must be > 0").max(MAX_INT4, "is too large");

const name = z.string().trim().min(1, "is required").max(200, "must be at most 200 characters");

const slug = z
  .string()
  .regex(SLUG_PATTERN, "must be 1-63 lowercase letters, digits or -, starting with a letter or digit");

const id = z.string().min(1, "must not be empty").max(200, "is too long");

/** A list whose entries must differ: a repeated model or policy is a mistake, not a preference. */
function distinct<T extends z.ZodType<string>>(item: T, max: number) {
  return z
    .array(item)
    .max(max, `at most ${max} entries`)
    .superRefine((values, context) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value))
          context.addIssue({ code: "custom", path: [index], message: `"${value}" is repeated` });
        seen.add(value);
      });
    });
}

/**
 * A JSON object kept exactly as sent (guardrails, pii: their semantics belong to later work). Not
 * `z.record`, which copies key by key and would turn a `__proto__` key into a prototype change.
 */
const jsonObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "must be an object",
);

/** A token limit: one `window` names both type and size (period and rolling names never overlap). */
const tokenLimit = z.strictObject({
  metric: z.enum(BUDGET_METRICS),
  limit: z.number().min(0, "must be >= 0"),
  window: z.enum([...PERIOD_WINDOWS, ...ROLLING_WINDOWS]),
  mode: z.enum(["extend", "override"]).default("extend"),
  warnAt,
});

/** The project's `routing` field: the names the routing service reads (ProjectRoutingConfig). */
const routing = z.strictObject({
  llm: z
    .strictObject({
      modelId: id,
      fallbackModelIds: distinct(id, 20).optional(),
      prompt: z.string().max(20_000, "is too long").optional(),
      timeoutMs: positiveInt.optional(),
    })
    .optional(),
  weights: z.record(z.string(), z.number().min(0, "must be >= 0")).optional(),
  health: z.record(z.string(), z.number()).optional(),
  maxAttempts: z.int("must be an integer").min(1, "must be >= 1").max(100, "must be at most 100").optional(),
});
export type RoutingBody = z.infer<typeof routing>;

const notifications = z.strictObject({ channels: distinct(id, 100) });

/** Fields a create and an update share; nullable ones are cleared by `null`. */
const projectFields = {
  name,
  slug,
  defaultTimeoutMs: positiveInt.nullable(),
  models: distinct(id, 500),
  policies: distinct(z.enum(ROUTING_POLICIES), ROUTING_POLICIES.length),
  budgets: z.array(budgetEntry).max(50, "at most 50 budgets"),
  routing: routing.nullable(),
  guardrails: jsonObject.nullable(),
  pii: jsonObject.nullable(),
  spendGroupId: id.nullable(),
  notifications: notifications.nullable(),
};

export const createProjectBody = z.strictObject({
  name: projectFields.name,
  slug: projectFields.slug.optional(),
  defaultTimeoutMs: projectFields.defaultTimeoutMs.optional(),
  models: projectFields.models.optional(),
  policies: projectFields.policies.optional(),
  budgets: projectFields.budgets.optional(),
  routing: projectFields.routing.optional(),
  guardrails: projectFields.guardrails.optional(),
  pii: projectFields.pii.optional(),
  spendGroupId: projectFields.spendGroupId.optional(),
  notifications: projectFields.notifications.optional(),
});
export type CreateProjectBody = z.infer<typeof createProjectBody>;

/** PUT: every field optional; an omitted field is unchanged, `null` clears a nullable one. */
export const updateProjectBody = createProjectBody.partial();
export type UpdateProjectBody = z.infer<typeof updateProjectBody>;

/** PATCH `/projects/:id/guardrails`: the two fields only, same omitted/null/object rule. */
export const guardrailsBody = z
  .strictObject({ guardrails: projectFields.guardrails.optional(), pii: projectFields.pii.optional() })
  .refine((body) => body.guardrails !== undefined || body.pii !== undefined, "send guardrails, pii or both");

const tags = z
  .record(
    z.string().min(1, "tag names must not be empty").max(100, "tag names are at most 100 characters"),
    z.string("must be a string").max(500, "must be at most 500 characters"),
  )
  .refine((value) => Object.keys(value).length <= 50, "at most 50 tags");

const tokenFields = {
  name,
  description: z.string().trim().max(1000, "must be at most 1000 characters").nullable(),
  tags,
  limits: z.array(tokenLimit).max(50, "at most 50 limits"),
};

export const createTokenBody = z.strictObject({
  name: tokenFields.name,
  description: tokenFields.description.optional(),
  tags: tokenFields.tags.optional(),
  limits: tokenFields.limits.optional(),
});

/** PUT: `tags` replaces the tags (`{}` clears them); omitted fields are unchanged. */
export const updateTokenBody = createTokenBody.partial();

const memberRole = z.enum(PROJECT_MEMBER_ROLES);
export const addMemberBody = z.strictObject({ userId: id, role: memberRole });
export const updateMemberBody = z.strictObject({ role: memberRole });

/**
 * The slug a name gives when none is sent: lower case, accents dropped, every other run of
 * characters a single `-`, at most 63 characters. Empty when the name has no letter or digit.
 */
export function slugFromName(projectName: string): string {
  return projectName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}
