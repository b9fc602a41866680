import { providerErrorMessage } from "./errors.js";
import { buildGeminiRequest } from "./gemini-request.js";
import { GeminiStreamDecoder, parseGeminiResponse } from "./gemini-response.js";
import type { ProviderAdapter } from "./types.js";

/**
 * Gemini API (Generative Language, v1beta) with the `x-goog-api-key` header. Error bodies are
 * `{error:{code, message, status}}` (an array of them on some streaming failures).
 */
export const geminiAdapter: ProviderAdapter = {
  kind: "gemini",
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  buildRequest: buildGeminiRequest,
  parseResponse: parseGeminiResponse,
  createStreamDecoder: () => new GeminiStreamDecoder(),
  errorMessage: (status, bodyText) => providerErrorMessage("Gemini", status, bodyText),
};
