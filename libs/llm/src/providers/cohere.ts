import { buildCohereRequest } from "./cohere-request.js";
import { CohereStreamDecoder, parseCohereResponse } from "./cohere-response.js";
import { providerErrorMessage } from "./errors.js";
import type { ProviderAdapter } from "./types.js";

/** Cohere v2 Chat (`POST {base}/v2/chat`, Bearer key). Error bodies are `{id, message}`. */
export const cohereAdapter: ProviderAdapter = {
  kind: "cohere",
  defaultBaseUrl: "https://api.cohere.com",
  buildRequest: buildCohereRequest,
  parseResponse: parseCohereResponse,
  createStreamDecoder: () => new CohereStreamDecoder(),
  errorMessage: (status, bodyText) => providerErrorMessage("Cohere", status, bodyText),
};
