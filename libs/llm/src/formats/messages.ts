import { renderMessagesResponse } from "./messages-render.js";
import { parseMessagesRequest } from "./messages-request.js";
import { MessagesStreamEncoder } from "./messages-stream.js";
import type { ClientFormat } from "./types.js";

/** Anthropic Messages API, `POST /v1/messages`. */
export const messagesFormat: ClientFormat = {
  name: "messages",
  parseRequest: parseMessagesRequest,
  renderResponse: renderMessagesResponse,
  createStreamEncoder: (context) => new MessagesStreamEncoder(context),
  // Anthropic's envelope: top-level `type: "error"`; the SDK reads `error.type` and `error.message`.
  renderError: (error) => ({
    type: "error",
    error: { type: error.type, message: error.message, code: error.code },
  }),
};
