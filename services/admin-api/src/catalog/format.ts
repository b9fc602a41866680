import { z } from "zod";

/**
 * The catalog file format (README.md in this folder): `{ providers: [{ id, name, models: [...] }] }`,
 * prices in USD per 1,000 tokens. A fetched file is checked against this schema before any of it
 * is used; unknown keys are dropped so a newer file still loads. The bounds keep a hostile or broken
 * repository from filling memory.
 */
const price = z.number().finite().nonnegative();
const slug = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/, "must be 1-200 letters, digits or . _ : / @ -");

const pricingTier = z.object({
  fromTokens: z.number().int().nonnegative(),
  inputPrice: price,
  outputPrice: price,
  cachePrice: price.optional(),
});

export const catalogModelSchema = z.object({
  id: slug,
  name: z.string().trim().min(1).max(200),
  contextWindow: z.number().int().positive().nullable(),
  inputPrice: price.nullable(),
  outputPrice: price.nullable(),
  cachePrice: price.nullable().optional(),
  cacheWritePrice: price.nullable().optional(),
  pricingTiers: z.array(pricingTier).max(20).optional(),
  capabilities: z.array(z.string().trim().min(1).max(64)).max(50).default([]),
});

export const catalogProviderSchema = z.object({
  id: slug,
  name: z.string().trim().min(1).max(200),
  models: z.array(catalogModelSchema).max(5000),
});

export const catalogFileSchema = z.object({
  providers: z.array(catalogProviderSchema).max(200),
});

export type CatalogFileModel = z.infer<typeof catalogModelSchema>;
export type CatalogProvider = z.infer<typeof catalogProviderSchema>;
export type CatalogFile = z.infer<typeof catalogFileSchema>;

/** The first problem of a file that does not fit, with its path: `providers.0.models.2.inputPrice: ...`. */
export function describeFormatError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "the file does not fit the catalog format";
  const path = issue.path.map(String).join(".");
  return `the file does not fit the catalog format: ${path ? `${path}: ` : ""}${issue.message}`;
}
