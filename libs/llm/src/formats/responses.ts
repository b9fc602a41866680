import { renderResponsesResponse } from "./responses-render.js";
import { parseResponsesRequest } from "./responses-request.js";
import { ResponsesStreamEncoder } from "./responses-stream.js";
import type { ClientFormat } from "./types.js";

/** OpenAI Responses API, `POST /v1/responses`. */
export const responsesFormat: ClientFormat = {
  name: "responses",
  parseRequest: parseResponsesRequest,
  renderResponse: renderResponsesResponse,
  createStreamEncoder: (context) => new ResponsesStreamEncoder(context),
  // Same envelope as chat: the openai SDKs read `error.message` / `error.type` / `error.code`.
  renderError: (error) => ({ error: { message: error.message, type: error.type, code: error.code } }),
};
