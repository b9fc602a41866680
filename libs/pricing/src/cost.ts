/**
 * Cost of a call in integer micro-USD. Prices are USD per 1,000 tokens (as the API shows them);
 * one token at price P costs P * 1000 micro-USD. Results are rounded up to the next micro-USD so
 * a budget is never under-charged by rounding. A model without a price yields `null`: an explicit
 * "unpriced" state, never a silent $0.
 */
export interface ModelPrices {
  /** USD per 1,000 input tokens; null/undefined = unpriced. */
  inputPrice: number | null | undefined;
  outputPrice: number | null | undefined;
  /** USD per 1,000 cached (read) input tokens; defaults to the input price. */
  cachePrice?: number | null | undefined;
}

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  /** Cached tokens, a subset of inputTokens charged at the cache price. */
  cacheTokens?: number;
}

/** Micro-USD per token at a price in USD per 1k tokens, kept as a fraction-free float for one multiply. */
function microsPerToken(pricePer1k: number): number {
  return pricePer1k * 1000;
}

export function costMicros(prices: ModelPrices, counts: TokenCounts): number | null {
  if (prices.inputPrice == null || prices.outputPrice == null) return null;
  const cached = Math.min(counts.cacheTokens ?? 0, counts.inputTokens);
  const cachePrice = prices.cachePrice ?? prices.inputPrice;
  const exact =
    (counts.inputTokens - cached) * microsPerToken(prices.inputPrice) +
    cached * microsPerToken(cachePrice) +
    counts.outputTokens * microsPerToken(prices.outputPrice);
  // Float products like 0.15 * 1000 * 3 can land at 450.00000000000006: trim float noise before
  // rounding up, so exact prices do not gain a spurious micro-USD.
  return Math.ceil(Number(exact.toFixed(6)));
}

/** USD number for display from micro-USD. */
export function microsToUsd(micros: number): number {
  return micros / 1_000_000;
}

/** Micro-USD from a USD amount (budget limits), rounded down so a limit is never raised. */
export function usdToMicros(usd: number): number {
  return Math.floor(Number((usd * 1_000_000).toFixed(6)));
}

/** Output bound when neither the request nor the model gives one. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/**
 * The most output a call can produce: the request's max_tokens (0 = not set), else the model's
 * output limit, else DEFAULT_MAX_OUTPUT_TOKENS. Routing prices it, budget reserves it: both must
 * use the same bound.
 */
export function worstCaseOutputTokens(
  requestMaxTokens: number,
  model: { maxOutputTokens: number | null },
): number {
  return requestMaxTokens > 0 ? requestMaxTokens : (model.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
}
