import { providerErrorMessage } from "./errors.js";
import { buildOllamaRequest } from "./ollama-request.js";
import { OllamaStreamDecoder, parseOllamaResponse } from "./ollama-response.js";
import type { ProviderAdapter } from "./types.js";

/** Ollama's native API (`POST {base}/api/chat`, NDJSON streams). Error bodies are `{error: "..."}`. */
export const ollamaAdapter: ProviderAdapter = {
  kind: "ollama",
  defaultBaseUrl: "http://localhost:11434",
  buildRequest: buildOllamaRequest,
  parseResponse: parseOllamaResponse,
  createStreamDecoder: () => new OllamaStreamDecoder(),
  errorMessage: (status, bodyText) => providerErrorMessage("Ollama", status, bodyText),
};
