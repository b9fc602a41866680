import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  ContentPart,
  ImagePart,
  ResponseFormat,
  ToolChoice,
  ToolResultPart,
} from "../canonical/types.js";
import { jsonPost } from "./http.js";
import { imageBase64, remoteImageUrl } from "./images.js";
import { argumentsObject } from "./json-args.js";
import { compact, type JsonRecord } from "./shape.js";
import { anthropicToolUseId } from "./tool-ids.js";
import type { UpstreamHttpRequest, UpstreamTarget } from "./types.js";

/** The Messages API version this adapter speaks (the one that has been stable since 2023). */
export const ANTHROPIC_VERSION = "2023-06-01";

/** `max_tokens` is required by the Messages API; this is the hub's default when the client gave none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = JsonRecord;
interface AnthropicMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** `POST {base}/v1/messages`. */
export function buildAnthropicRequest(
  request: CanonicalRequest,
  target: UpstreamTarget,
): UpstreamHttpRequest {
  const hasTools = (request.tools?.length ?? 0) > 0;
  const body = compact({
    model: target.upstreamModel,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    system: systemPrompt(request.system, request.responseFormat),
    messages: messages(request.messages),
    tools: hasTools ? request.tools?.map(tool) : undefined,
    tool_choice: hasTools && request.toolChoice ? toolChoice(request.toolChoice) : undefined,
    stop_sequences: request.stop && request.stop.length > 0 ? request.stop : undefined,
    temperature: request.temperature,
    // Recent Claude models refuse temperature and top_p together; temperature is the one kept.
    top_p: request.temperature === undefined ? request.topP : undefined,
    metadata: request.user ? { user_id: request.user } : undefined,
    stream: request.stream,
  } as JsonRecord);
  const auth: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (target.apiKey) auth["x-api-key"] = target.apiKey;
  return jsonPost(
    `${target.baseUrl}/v1/messages`,
    request.stream ? "text/event-stream" : "application/json",
    auth,
    body,
  );
}

/**
 * The Messages API has no JSON mode of its own for every model, so JSON output is asked for in the
 * system prompt (with the schema when the client gave one).
 */
export function systemPrompt(
  system: string | undefined,
  format: ResponseFormat | undefined,
): string | undefined {
  const instruction = jsonInstruction(format);
  if (!instruction) return system || undefined;
  return system ? `${system}\n\n${instruction}` : instruction;
}

function jsonInstruction(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === "text") return undefined;
  const base = "Respond with a single valid JSON object and nothing else: no prose, no Markdown code fences.";
  if (format.type === "json_object") return base;
  return `${base} The object must conform to this JSON schema (named "${format.name}"):\n${JSON.stringify(format.schema)}`;
}

function tool(definition: CanonicalTool): JsonRecord {
  // input_schema must be an object schema; a client may send `{}` for a tool without parameters.
  const schema =
    definition.parameters.type === undefined
      ? { type: "object", ...definition.parameters }
      : definition.parameters;
  return compact({ name: definition.name, description: definition.description, input_schema: schema });
}

function toolChoice(choice: ToolChoice): JsonRecord {
  switch (choice.type) {
    case "auto":
    case "none":
      return { type: choice.type };
    case "required":
      return { type: "any" };
    case "tool":
      return { type: "tool", name: choice.name };
  }
}

/**
 * Roles alternate in the Messages API, so consecutive same-role messages merge: tool results are
 * `tool_result` blocks of a `user` message, and join the user text that follows them. Inside a user
 * message the tool results must come first, so they are moved ahead of text and images.
 */
function messages(history: CanonicalMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const message of history) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = message.content.flatMap((part) => blocksOf(part, role));
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  for (const message of out) {
    if (message.role !== "user") continue;
    const results = message.content.filter((block) => block.type === "tool_result");
    if (results.length > 0)
      message.content = [...results, ...message.content.filter((block) => block.type !== "tool_result")];
  }
  return out;
}

function blocksOf(part: ContentPart, role: "user" | "assistant"): Block[] {
  switch (part.type) {
    case "text":
      // Empty text blocks are refused ("text content blocks must be non-empty").
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "image":
      return role === "user" ? [imageBlock(part)] : [];
    case "tool_call":
      if (role !== "assistant") return [];
      return [
        {
          type: "tool_use",
          id: anthropicToolUseId(part.id),
          name: part.name,
          input: argumentsObject(part.arguments),
        },
      ];
    case "tool_result":
      return role === "user" ? [toolResultBlock(part)] : [];
  }
}

export function imageBlock(part: ImagePart): Block {
  const bytes = imageBase64(part);
  if (bytes)
    return { type: "image", source: { type: "base64", media_type: bytes.mediaType, data: bytes.data } };
  return { type: "image", source: { type: "url", url: remoteImageUrl(part) ?? "" } };
}

function toolResultBlock(part: ToolResultPart): Block {
  const content = part.content.flatMap((inner): Block[] => {
    if (inner.type === "image") return [imageBlock(inner)];
    return inner.text === "" ? [] : [{ type: "text", text: inner.text }];
  });
  return compact({
    type: "tool_result",
    tool_use_id: anthropicToolUseId(part.toolCallId),
    content: content.length > 0 ? content : undefined,
    is_error: part.isError ? true : undefined,
  });
}
