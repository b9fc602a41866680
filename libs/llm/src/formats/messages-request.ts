import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  ImagePart,
  TextPart,
  ToolCallPart,
  ToolChoice,
  ToolResultPart,
} from "../canonical/types.js";
import { nameToolResults } from "./tool-names.js";
import type { ParsedClientRequest } from "./types.js";
import {
  absent,
  bad,
  expectArray,
  expectBody,
  expectName,
  expectObject,
  expectString,
  type JsonObject,
  jsonText,
  optionalBoolean,
  optionalModel,
  optionalNumber,
  optionalPositiveInteger,
  optionalSchema,
  optionalString,
  own,
  quote,
} from "./validate.js";

/**
 * `POST /v1/messages` body -> canonical request.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function parseMessagesRequest(body: unknown): ParsedClientRequest {
  const record = expectBody(body);
  // The Messages API has no default output limit: the field is required, as upstream.
  if (absent(own(record, "max_tokens"))) throw bad("`max_tokens` is required (a positive integer).");
  const maxTokens = optionalPositiveInteger(own(record, "max_tokens"), "max_tokens");

  const messages: CanonicalMessage[] = [];
  expectArray(own(record, "messages"), "messages", true).forEach((raw, index) => {
    parseMessage(raw, `messages[${index}]`, messages);
  });
  nameToolResults(messages);

  const request: CanonicalRequest = {
    model: optionalModel(record),
    messages,
    stream: optionalBoolean(own(record, "stream"), "stream") ?? false,
  };
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const system = parseSystem(own(record, "system"));
  if (system !== undefined && system !== "") request.system = system;
  const tools = parseTools(own(record, "tools"));
  if (tools) request.tools = tools;
  const toolChoice = parseToolChoice(own(record, "tool_choice"));
  if (toolChoice) request.toolChoice = toolChoice;
  const temperature = optionalNumber(own(record, "temperature"), "temperature");
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(own(record, "top_p"), "top_p");
  if (topP !== undefined) request.topP = topP;
  const stopSequences = own(record, "stop_sequences");
  if (!absent(stopSequences)) {
    const stop = expectArray(stopSequences, "stop_sequences").map((item, index) =>
      expectString(item, `stop_sequences[${index}]`),
    );
    if (stop.length > 0) request.stop = stop;
  }
  const metadata = own(record, "metadata");
  if (!absent(metadata)) {
    const user = optionalString(own(expectObject(metadata, "metadata"), "user_id"), "metadata.user_id");
    if (user !== undefined) request.user = user;
  }
  return { request };
}

/** `system`: a string or an array of text blocks (split for cache_control), as one prompt. */
function parseSystem(value: unknown): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) throw bad("`system` must be a string or an array of text blocks.");
  return value
    .map((raw, index) => {
      const block = expectObject(raw, `system[${index}]`);
      const type = own(block, "type");
      if (type !== "text") throw bad(`\`system[${index}].type\` must be "text" (got ${quote(type)}).`);
      return expectString(own(block, "text"), `system[${index}].text`);
    })
    .join("\n\n");
}

function parseMessage(raw: unknown, path: string, out: CanonicalMessage[]): void {
  const message = expectObject(raw, path);
  const role = own(message, "role");
  if (typeof role !== "string") throw bad(`\`${path}.role\` must be a string.`);
  if (role !== "user" && role !== "assistant") {
    throw bad(
      `\`${path}.role\` must be "user" or "assistant" (got ${quote(role)}); put instructions in \`system\`.`,
    );
  }
  const content = own(message, "content");
  if (typeof content === "string") {
    out.push({ role, content: [{ type: "text", text: content }] });
    return;
  }
  if (!Array.isArray(content) || content.length === 0) {
    throw bad(`\`${path}.content\` must be a string or a non-empty array of content blocks.`);
  }
  if (role === "assistant") {
    const parts = content.flatMap((block, index) => assistantBlock(block, `${path}.content[${index}]`));
    // A turn of only thinking blocks leaves nothing the hub can carry.
    if (parts.length > 0) out.push({ role, content: parts });
    return;
  }
  // Tool results become `tool` messages placed before the rest of the user turn: chat-style
  // providers need results right after the assistant's calls (Anthropic puts them first anyway).
  const results: ToolResultPart[] = [];
  const rest: Array<TextPart | ImagePart> = [];
  content.forEach((raw, index) => {
    const part = userBlock(raw, `${path}.content[${index}]`);
    if (part.type === "tool_result") results.push(part);
    else rest.push(part);
  });
  for (const result of results) out.push({ role: "tool", content: [result] });
  if (rest.length > 0) out.push({ role: "user", content: rest });
}

function userBlock(raw: unknown, path: string): TextPart | ImagePart | ToolResultPart {
  const block = expectObject(raw, path);
  const type = own(block, "type");
  switch (type) {
    case "text":
      return { type: "text", text: expectString(own(block, "text"), `${path}.text`) };
    case "image":
      return imageBlock(block, path);
    case "tool_result":
      return toolResult(block, path);
    case "document":
      throw bad(`\`${path}.type\` "document" is not supported; send text or images.`);
    default:
      throw bad(
        `\`${path}.type\` must be "text", "image" or "tool_result" in a user message (got ${quote(type)}).`,
      );
  }
}

function assistantBlock(raw: unknown, path: string): Array<TextPart | ToolCallPart> {
  const block = expectObject(raw, path);
  const type = own(block, "type");
  switch (type) {
    case "text":
      return [{ type: "text", text: expectString(own(block, "text"), `${path}.text`) }];
    case "tool_use": {
      const input = own(block, "input");
      return [
        {
          type: "tool_call",
          id: expectName(own(block, "id"), `${path}.id`),
          name: expectName(own(block, "name"), `${path}.name`),
          arguments: absent(input) ? "{}" : jsonText(expectObject(input, `${path}.input`), `${path}.input`),
        },
      ];
    }
    // Thinking is signed for the model that produced it and cannot cross providers: left out.
    case "thinking":
    case "redacted_thinking":
      return [];
    default:
      throw bad(
        `\`${path}.type\` must be "text" or "tool_use" in an assistant message (got ${quote(type)}).`,
      );
  }
}

function imageBlock(block: JsonObject, path: string): ImagePart {
  const source = expectObject(own(block, "source"), `${path}.source`);
  const type = own(source, "type");
  if (type === "base64") {
    return {
      type: "image",
      base64: expectString(own(source, "data"), `${path}.source.data`),
      mediaType: expectName(own(source, "media_type"), `${path}.source.media_type`),
    };
  }
  if (type === "url") return { type: "image", url: expectString(own(source, "url"), `${path}.source.url`) };
  throw bad(`\`${path}.source.type\` must be "base64" or "url" (got ${quote(type)}).`);
}

function toolResult(block: JsonObject, path: string): ToolResultPart {
  const result: ToolResultPart = {
    type: "tool_result",
    toolCallId: expectName(own(block, "tool_use_id"), `${path}.tool_use_id`),
    content: toolResultContent(own(block, "content"), `${path}.content`),
  };
  const isError = optionalBoolean(own(block, "is_error"), `${path}.is_error`);
  if (isError !== undefined) result.isError = isError;
  return result;
}

function toolResultContent(content: unknown, path: string): Array<TextPart | ImagePart> {
  if (absent(content)) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content))
    throw bad(`\`${path}\` must be a string or an array of text and image blocks.`);
  return content.map((raw, index): TextPart | ImagePart => {
    const part = userBlock(raw, `${path}[${index}]`);
    if (part.type === "tool_result")
      throw bad(`\`${path}[${index}]\`: a tool result cannot contain tool results.`);
    return part;
  });
}

function parseTools(value: unknown): CanonicalTool[] | undefined {
  if (absent(value)) return undefined;
  return expectArray(value, "tools").map((raw, index) => {
    const path = `tools[${index}]`;
    const tool = expectObject(raw, path);
    const type = own(tool, "type");
    // Client tools have no type (or "custom"); typed ones are Anthropic-hosted server tools.
    if (!absent(type) && type !== "custom") {
      throw bad(
        `\`${path}.type\` ${quote(type)} is not supported; only client tools (name + input_schema) are.`,
      );
    }
    const parsed: CanonicalTool = {
      name: expectName(own(tool, "name"), `${path}.name`),
      parameters: optionalSchema(own(tool, "input_schema"), `${path}.input_schema`) ?? {
        type: "object",
        properties: {},
      },
    };
    const description = optionalString(own(tool, "description"), `${path}.description`);
    if (description !== undefined) parsed.description = description;
    return parsed;
  });
}

function parseToolChoice(value: unknown): ToolChoice | undefined {
  if (absent(value)) return undefined;
  const choice = expectObject(value, "tool_choice");
  const type = own(choice, "type");
  switch (type) {
    case "auto":
    case "none":
      return { type };
    // "any": some tool must be called, which is what the hub calls required.
    case "any":
      return { type: "required" };
    case "tool":
      return { type: "tool", name: expectName(own(choice, "name"), "tool_choice.name") };
    default:
      throw bad(`\`tool_choice.type\` must be "auto", "any", "tool" or "none" (got ${quote(type)}).`);
  }
}
