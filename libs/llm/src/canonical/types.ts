/**
 * The hub of hub-and-spoke translation. Every client format (chat-completions, responses,
 * messages) is parsed into these types, and every provider adapter (openai, anthropic, gemini,
 * mistral, cohere, xai, ollama, custom) speaks from and to them. N formats + M providers need
 * N + M converters instead of N x M.
 *
 * The model is deliberately small: it carries what all three client formats can express
 * (system prompt, multi-turn, tool calls and results, images, JSON output, stop reasons, usage
 * with cached tokens, end user, max tokens). Fields a format has and the hub lacks are kept in
 * `extra` only where the same family forwards them natively (see the provider adapters).
 */

export type CanonicalRole = "user" | "assistant" | "tool";

export interface TextPart {
  type: "text";
  text: string;
}

/** An image either by URL (http(s) or data:) or as base64 bytes with a media type. */
export interface ImagePart {
  type: "image";
  /** Set when the client sent a URL (including `data:` URLs, kept as given). */
  url?: string;
  /** Set when the client sent raw base64 (messages format `source.type: base64`). */
  base64?: string;
  mediaType?: string;
  detail?: string;
}

/** The assistant asked for a tool to be called. `arguments` is the JSON text of the arguments. */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  arguments: string;
}

/** The result of a tool call, sent back by the client. */
export interface ToolResultPart {
  type: "tool_result";
  toolCallId: string;
  /** Tool name when the format carries it (gemini needs it; resolved from history otherwise). */
  name?: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean;
}

export type ContentPart = TextPart | ImagePart | ToolCallPart | ToolResultPart;

export interface CanonicalMessage {
  role: CanonicalRole;
  content: ContentPart[];
}

export interface CanonicalTool {
  name: string;
  description?: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface CanonicalRequest {
  /** The model the client asked for; routing decides the real one. */
  model: string;
  /** System / developer instructions, joined in order. */
  system?: string;
  messages: CanonicalMessage[];
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
  /** End-user id (`user`, or messages `metadata.user_id`). */
  user?: string;
  stream: boolean;
}

export type StopReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

export interface CanonicalUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (read). Included in inputTokens. */
  cacheReadTokens: number;
  /** Input tokens written to the provider's prompt cache. Included in inputTokens. */
  cacheWriteTokens: number;
}

export interface CanonicalResponse {
  /** The provider's response id when it has one. */
  id: string;
  /** The upstream model that answered. */
  model: string;
  /** Text and tool calls, in order. */
  content: Array<TextPart | ToolCallPart>;
  stopReason: StopReason;
  usage: CanonicalUsage;
}

/**
 * Stream events, provider-independent. A provider stream decoder emits them; a client-format
 * encoder turns them into that format's SSE. Order: `start`, then any of `text` / `tool_call_*`,
 * then `finish` (with the stop reason), then `usage` (may also come earlier; the last one wins).
 */
export type CanonicalStreamEvent =
  | { type: "start"; id: string; model: string }
  | { type: "text"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; arguments: string }
  | { type: "finish"; stopReason: StopReason }
  | { type: "usage"; usage: CanonicalUsage };

export const EMPTY_USAGE: CanonicalUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
