import { PROVIDER_KINDS, type ProviderKind } from "@gw/llm";
import { z } from "zod";
import { budgetEntry } from "../routes/budget-schemas.js";

/**
 * Request bodies of `/api/models`. Every bound here is also a bound of the columns (Decimal(24,12),
 * int4), so a value that passes never turns into a database error (a 500) on write.
 */

/** The eight provider kinds (libs/llm). */
export const PROVIDERS = PROVIDER_KINDS as readonly [ProviderKind, ...ProviderKind[]];

/** Fields the catalog sync may overwrite unless locked in `fieldOverrides` (SPEC "Model"). */
export const LOCKABLE_FIELDS = [
  "inputPrice",
  "outputPrice",
  "cachePrice",
  "cacheWritePrice",
  "pricingTiers",
  "contextWindow",
  "capabilities",
] as const;
export type LockableField = (typeof LOCKABLE_FIELDS)[number];

const MAX_PRICE = 1_000_000;
const MAX_INT4 = 2_147_483_647;

const modelId = z
  .string()
  .min(1, "is required")
  .max(200, "must be at most 200 characters")
  .regex(/^\S+$/, "must not contain whitespace");

/** USD per 1,000 tokens; null = no price (an explicit state, never a silent $0). */
const price = z.number().min(0, "must be >= 0").max(MAX_PRICE, `must be at most ${MAX_PRICE}`);

const positiveInt = z.int("must be an integer").positive("must be > 0").max(MAX_INT4, "is too large");

const pricingTier = z.strictObject({
  fromTokens: z.int("must be an integer").min(0, "must be >= 0"),
  inputPrice: price,
  outputPrice: price,
  cachePrice: price.optional(),
});

const pricingTiers = z
  .array(pricingTier)
  .max(50, "at most 50 tiers")
  .superRefine((tiers, context) => {
    const seen = new Set<number>();
    tiers.forEach((tier, index) => {
      if (seen.has(tier.fromTokens))
        context.addIssue({ code: "custom", path: [index, "fromTokens"], message: "is used by another tier" });
      seen.add(tier.fromTokens);
    });
  })
  // Stored sorted, the order the cost calculation reads them in.
  .transform((tiers) => [...tiers].sort((a, b) => a.fromTokens - b.fromTokens));

const capabilities = z
  .array(z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters"))
  .max(50, "at most 50 capabilities")
  .transform((names) => [...new Set(names)]);

const baseUrl = z
  .string()
  .trim()
  .max(2000, "must be at most 2000 characters")
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

/** `{ field: true }` locks, `{ field: false }` unlocks; only lockable fields may be named. */
const fieldOverrides = z
  .record(z.string(), z.boolean("must be true or false"))
  .superRefine((value, context) => {
    for (const key of Object.keys(value))
      if (!(LOCKABLE_FIELDS as readonly string[]).includes(key))
        context.addIssue({
          code: "custom",
          path: [key],
          message: `is not a lockable field (lockable: ${LOCKABLE_FIELDS.join(", ")})`,
        });
  });

const apiKey = z.string().trim().min(1, "must not be empty").max(10_000, "is too long");

/** Fields a create and an update share; an update takes each of them optionally. */
const modelFields = {
  provider: z.enum(PROVIDERS),
  upstreamModel: z.string().trim().min(1, "must not be empty").max(200, "is too long").nullable(),
  inputPrice: price.nullable(),
  outputPrice: price.nullable(),
  cachePrice: price.nullable(),
  cacheWritePrice: price.nullable(),
  pricingTiers: pricingTiers.nullable(),
  contextWindow: positiveInt.nullable(),
  maxOutputTokens: positiveInt.nullable(),
  capabilities,
  enabled: z.boolean(),
  baseUrl: baseUrl.nullable(),
  limits: z.array(budgetEntry).max(50, "at most 50 limits"),
};

/** The fields create and update share, each optional. */
const optionalModelFields = {
  apiKey: apiKey.nullable().optional(),
  upstreamModel: modelFields.upstreamModel.optional(),
  inputPrice: modelFields.inputPrice.optional(),
  outputPrice: modelFields.outputPrice.optional(),
  cachePrice: modelFields.cachePrice.optional(),
  cacheWritePrice: modelFields.cacheWritePrice.optional(),
  pricingTiers: modelFields.pricingTiers.optional(),
  contextWindow: modelFields.contextWindow.optional(),
  maxOutputTokens: modelFields.maxOutputTokens.optional(),
  capabilities: modelFields.capabilities.optional(),
  baseUrl: modelFields.baseUrl.optional(),
  limits: modelFields.limits.optional(),
};

export const createModelBody = z.strictObject({
  id: modelId,
  provider: modelFields.provider,
  ...optionalModelFields,
  enabled: modelFields.enabled.default(true),
  fieldOverrides: fieldOverrides.optional(),
});
export type CreateModelBody = z.infer<typeof createModelBody>;

/** PUT: any field; `apiKey: null` removes the key, `fieldOverrides: null` unlocks every field. */
export const updateModelBody = z.strictObject({
  provider: modelFields.provider.optional(),
  ...optionalModelFields,
  enabled: modelFields.enabled.optional(),
  fieldOverrides: fieldOverrides.nullable().optional(),
});
export type UpdateModelBody = z.infer<typeof updateModelBody>;

export const rotateKeyBody = z.strictObject({ apiKey });
