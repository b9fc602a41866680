import { providerErrorMessage } from "./errors.js";
import { CUSTOM, MISTRAL, OPENAI, type OpenAiFlavor, XAI } from "./openai-flavor.js";
import { buildOpenAiRequest } from "./openai-request.js";
import { OpenAiStreamDecoder, parseOpenAiResponse } from "./openai-response.js";
import type { ProviderAdapter } from "./types.js";

/**
 * One adapter per Chat Completions dialect: OpenAI itself, xAI (`api.x.ai/v1`, compatible
 * including `stream_options`), Mistral (`any` for a forced tool, no `stream_options` / `user`,
 * 9-character tool-call ids) and custom (any compatible server at the model's `baseUrl`).
 */
export function createOpenAiCompatibleAdapter(flavor: OpenAiFlavor): ProviderAdapter {
  return {
    kind: flavor.kind,
    defaultBaseUrl: flavor.defaultBaseUrl,
    buildRequest: (request, target) => buildOpenAiRequest(request, target, flavor),
    parseResponse: (body) => parseOpenAiResponse(body, flavor),
    createStreamDecoder: () => new OpenAiStreamDecoder(flavor),
    errorMessage: (status, bodyText) => providerErrorMessage(flavor.label, status, bodyText),
  };
}

export const openaiAdapter = createOpenAiCompatibleAdapter(OPENAI);
export const xaiAdapter = createOpenAiCompatibleAdapter(XAI);
export const mistralAdapter = createOpenAiCompatibleAdapter(MISTRAL);
export const customAdapter = createOpenAiCompatibleAdapter(CUSTOM);
