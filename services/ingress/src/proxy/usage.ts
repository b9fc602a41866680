import type { CanonicalUsage } from "@gw/llm";

/** Usage as the gateway records and bills it. `inputTokens` includes `cacheTokens` (cache reads). */
export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
}

export const NO_USAGE: CallUsage = { inputTokens: 0, outputTokens: 0, cacheTokens: 0 };

const int = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;

/** From a chat-completions `usage` object (native chat path). */
export function usageFromOpenAi(usage: unknown): CallUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  };
  return {
    inputTokens: int(u.prompt_tokens),
    outputTokens: int(u.completion_tokens),
    cacheTokens: int(u.prompt_tokens_details?.cached_tokens),
  };
}

/**
 * From a messages-API `usage` object (native messages path). Anthropic's `input_tokens` excludes
 * cache reads and writes; the gateway's input count includes both.
 */
export function usageFromAnthropic(usage: unknown, previous?: CallUsage): CallUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const hasInput = "input_tokens" in u || "cache_read_input_tokens" in u;
  const cacheRead = int(u.cache_read_input_tokens);
  return {
    inputTokens: hasInput
      ? int(u.input_tokens) + cacheRead + int(u.cache_creation_input_tokens)
      : (previous?.inputTokens ?? 0),
    outputTokens: "output_tokens" in u ? int(u.output_tokens) : (previous?.outputTokens ?? 0),
    cacheTokens: hasInput ? cacheRead : (previous?.cacheTokens ?? 0),
  };
}

export function usageFromCanonical(usage: CanonicalUsage): CallUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheTokens: usage.cacheReadTokens,
  };
}
