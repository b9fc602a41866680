import type { z } from "zod";

/**
 * Parse an environment object once with a zod schema. Services call this from their own
 * `config.ts` with `process.env`; nothing else reads the environment, so configuration is
 * explicit, validated at startup and passed down.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `  ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  }
  return result.data;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
