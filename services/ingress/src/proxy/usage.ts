/** Usage as the gateway records it, read from an upstream's chat-completions `usage` object. */
export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
}

export const NO_USAGE: CallUsage = { inputTokens: 0, outputTokens: 0, cacheTokens: 0 };

export function usageFromOpenAi(usage: unknown): CallUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown };
  };
  const int = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
  return {
    inputTokens: int(u.prompt_tokens),
    outputTokens: int(u.completion_tokens),
    cacheTokens: int(u.prompt_tokens_details?.cached_tokens),
  };
}
