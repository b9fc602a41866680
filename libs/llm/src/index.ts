export * from "./canonical/types.js";
export * from "./formats/index.js";
export * from "./providers/index.js";
export { countRequestTokens, countTextTokens, IMAGE_TOKENS_ESTIMATE } from "./tokens/count.js";
