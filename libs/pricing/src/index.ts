export { costMicros, type ModelPrices, microsToUsd, type TokenCounts, usdToMicros } from "./cost.js";
