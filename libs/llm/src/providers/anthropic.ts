import { buildAnthropicRequest } from "./anthropic-request.js";
import { AnthropicStreamDecoder, parseAnthropicResponse } from "./anthropic-response.js";
import { providerErrorMessage } from "./errors.js";
import type { ProviderAdapter } from "./types.js";

/**
 * Anthropic Messages API: `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`.
 * Error bodies are `{type:"error", error:{type, message}}`.
 */
export const anthropicAdapter: ProviderAdapter = {
  kind: "anthropic",
  defaultBaseUrl: "https://api.anthropic.com",
  buildRequest: buildAnthropicRequest,
  parseResponse: parseAnthropicResponse,
  createStreamDecoder: () => new AnthropicStreamDecoder(),
  errorMessage: (status, bodyText) => providerErrorMessage("Anthropic", status, bodyText),
};
