import { renderChatResponse } from "./chat-render.js";
import { parseChatRequest } from "./chat-request.js";
import { ChatStreamEncoder } from "./chat-stream.js";
import type { ClientFormat } from "./types.js";

/** OpenAI chat completions, `POST /v1/chat/completions`. */
export const chatFormat: ClientFormat = {
  name: "chat",
  parseRequest: parseChatRequest,
  renderResponse: renderChatResponse,
  createStreamEncoder: (context) => new ChatStreamEncoder(context),
  // The proxy's own envelope is OpenAI's: `{ error: { message, type, code } }`.
  renderError: (error) => ({ error: { message: error.message, type: error.type, code: error.code } }),
};
