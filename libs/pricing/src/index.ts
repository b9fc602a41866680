export {
  costMicros,
  DEFAULT_MAX_OUTPUT_TOKENS,
  type ModelPrices,
  microsToUsd,
  type TokenCounts,
  usdToMicros,
  worstCaseOutputTokens,
} from "./cost.js";
