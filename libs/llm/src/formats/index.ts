import { chatFormat } from "./chat.js";
import { messagesFormat } from "./messages.js";
import { responsesFormat } from "./responses.js";
import type { ClientFormat, ClientFormatName } from "./types.js";

export { chatFormat } from "./chat.js";
export { ChatStreamEncoder } from "./chat-stream.js";
export { messagesFormat } from "./messages.js";
export { MessagesStreamEncoder } from "./messages-stream.js";
export { responsesFormat } from "./responses.js";
export { RESPONSES_TRACE_DATA_TYPE, ResponsesStreamEncoder } from "./responses-stream.js";
export type {
  ClientFormat,
  ClientFormatName,
  ParsedClientRequest,
  RenderContext,
  StreamEncoder,
  TraceInfo,
  WireError,
} from "./types.js";

const FORMATS: Readonly<Record<ClientFormatName, ClientFormat>> = {
  chat: chatFormat,
  responses: responsesFormat,
  messages: messagesFormat,
};

/** The converter for one client wire format. */
export function clientFormat(name: ClientFormatName): ClientFormat {
  return FORMATS[name];
}
