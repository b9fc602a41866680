import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolCallPart,
  ToolChoice,
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
  optionalStringList,
  own,
  quote,
} from "./validate.js";

/**
 * `POST /v1/chat/completions` body -> canonical request.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export function parseChatRequest(body: unknown): ParsedClientRequest {
  const record = expectBody(body);
  const system: string[] = [];
  const messages: CanonicalMessage[] = [];
  expectArray(own(record, "messages"), "messages", true).forEach((raw, index) => {
    parseMessage(raw, `messages[${index}]`, system, messages);
  });
  nameToolResults(messages);

  const request: CanonicalRequest = {
    model: optionalModel(record),
    messages,
    stream: optionalBoolean(own(record, "stream"), "stream") ?? false,
  };
  // System and developer messages are instructions wherever they appear; the hub keeps one prompt.
  if (system.length > 0) request.system = system.join("\n\n");
  const tools = parseTools(own(record, "tools"));
  if (tools) request.tools = tools;
  const toolChoice = parseToolChoice(own(record, "tool_choice"));
  if (toolChoice) request.toolChoice = toolChoice;
  // `max_completion_tokens` replaced `max_tokens`; both are accepted, the newer one wins.
  const maxCompletion = optionalPositiveInteger(
    own(record, "max_completion_tokens"),
    "max_completion_tokens",
  );
  const maxTokens = maxCompletion ?? optionalPositiveInteger(own(record, "max_tokens"), "max_tokens");
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = optionalNumber(own(record, "temperature"), "temperature");
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(own(record, "top_p"), "top_p");
  if (topP !== undefined) request.topP = topP;
  const stop = optionalStringList(own(record, "stop"), "stop");
  if (stop && stop.length > 0) request.stop = stop;
  const responseFormat = parseResponseFormat(own(record, "response_format"));
  if (responseFormat) request.responseFormat = responseFormat;
  // `safety_identifier` is the newer name for the end-user id; `user` wins when both are set.
  const user =
    optionalString(own(record, "user"), "user") ??
    optionalString(own(record, "safety_identifier"), "safety_identifier");
  if (user !== undefined) request.user = user;
  // One choice is all the hub produces; silently answering one of `n` would be wrong.
  const n = optionalPositiveInteger(own(record, "n"), "n");
  if (n !== undefined && n !== 1) throw bad("`n` must be 1: only one choice per request is supported.");
  return { request };
}

function parseMessage(raw: unknown, path: string, system: string[], out: CanonicalMessage[]): void {
  const message = expectObject(raw, path);
  const role = own(message, "role");
  if (typeof role !== "string") throw bad(`\`${path}.role\` must be a string.`);
  switch (role) {
    case "system":
    case "developer":
      system.push(textOnly(own(message, "content"), `${path}.content`));
      return;
    case "user":
      out.push({ role: "user", content: userContent(own(message, "content"), `${path}.content`) });
      return;
    case "assistant":
      out.push(assistantMessage(message, path));
      return;
    case "tool":
      out.push(toolMessage(message, path));
      return;
    default:
      throw bad(
        `\`${path}.role\` must be one of "system", "developer", "user", "assistant", "tool" (got ${quote(role)}).`,
      );
  }
}

/** System, developer and tool content: a string or an array of text parts, as one string. */
function textOnly(content: unknown, path: string): string {
  if (typeof content === "string") return content;
  return textParts(content, path)
    .map((part) => part.text)
    .join("\n\n");
}

function textParts(content: unknown, path: string): TextPart[] {
  if (!Array.isArray(content)) throw bad(`\`${path}\` must be a string or an array of text parts.`);
  return content.map((raw, index) => {
    const part = expectObject(raw, `${path}[${index}]`);
    const type = own(part, "type");
    if (type !== "text") throw bad(`\`${path}[${index}].type\` must be "text" (got ${quote(type)}).`);
    return { type: "text", text: expectString(own(part, "text"), `${path}[${index}].text`) };
  });
}

function userContent(content: unknown, path: string): Array<TextPart | ImagePart> {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content) || content.length === 0) {
    throw bad(`\`${path}\` must be a string or a non-empty array of content parts.`);
  }
  return content.map((raw, index): TextPart | ImagePart => {
    const partPath = `${path}[${index}]`;
    const part = expectObject(raw, partPath);
    const type = own(part, "type");
    switch (type) {
      case "text":
        return { type: "text", text: expectString(own(part, "text"), `${partPath}.text`) };
      case "image_url":
        return imagePart(own(part, "image_url"), `${partPath}.image_url`);
      case "input_audio":
      case "file":
        throw bad(`\`${partPath}.type\` ${quote(type)} is not supported; send text or image_url parts.`);
      default:
        throw bad(`\`${partPath}.type\` must be "text" or "image_url" (got ${quote(type)}).`);
    }
  });
}

/** `image_url: { url, detail }`; a bare URL string is accepted too (some clients send one). */
function imagePart(value: unknown, path: string): ImagePart {
  if (typeof value === "string") return { type: "image", url: value };
  const image = expectObject(value, path);
  const part: ImagePart = { type: "image", url: expectString(own(image, "url"), `${path}.url`) };
  const detail = optionalString(own(image, "detail"), `${path}.detail`);
  if (detail !== undefined) part.detail = detail;
  return part;
}

function assistantMessage(message: JsonObject, path: string): CanonicalMessage {
  const content: Array<TextPart | ToolCallPart> = [];
  const raw = own(message, "content");
  const toolCalls = own(message, "tool_calls");
  if (typeof raw === "string") {
    // "" beside tool calls is the usual "no text"; alone it is still a (replayed) empty turn.
    if (raw !== "" || absent(toolCalls)) content.push({ type: "text", text: raw });
  } else if (Array.isArray(raw)) {
    raw.forEach((item, index) => {
      const partPath = `${path}.content[${index}]`;
      const part = expectObject(item, partPath);
      const type = own(part, "type");
      // A refusal the model gave earlier is still what it said: replayed as text.
      if (type === "text")
        content.push({ type: "text", text: expectString(own(part, "text"), `${partPath}.text`) });
      else if (type === "refusal")
        content.push({ type: "text", text: expectString(own(part, "refusal"), `${partPath}.refusal`) });
      else throw bad(`\`${partPath}.type\` must be "text" or "refusal" (got ${quote(type)}).`);
    });
  } else if (!absent(raw)) {
    throw bad(`\`${path}.content\` must be a string, an array of text parts or null.`);
  }
  if (!absent(toolCalls)) {
    expectArray(toolCalls, `${path}.tool_calls`).forEach((item, index) => {
      content.push(toolCall(item, `${path}.tool_calls[${index}]`));
    });
  }
  if (content.length === 0)
    throw bad(`\`${path}\`: an assistant message needs \`content\` or \`tool_calls\`.`);
  return { role: "assistant", content };
}

function toolCall(raw: unknown, path: string): ToolCallPart {
  const call = expectObject(raw, path);
  const type = own(call, "type");
  if (!absent(type) && type !== "function")
    throw bad(`\`${path}.type\` must be "function" (got ${quote(type)}).`);
  const fn = expectObject(own(call, "function"), `${path}.function`);
  const args = own(fn, "arguments");
  return {
    type: "tool_call",
    id: expectName(own(call, "id"), `${path}.id`),
    name: expectName(own(fn, "name"), `${path}.function.name`),
    // Arguments are JSON text on the wire; an object (some clients send one) is serialized.
    arguments:
      typeof args === "string"
        ? args
        : absent(args)
          ? "{}"
          : jsonText(expectObject(args, `${path}.function.arguments`), `${path}.function.arguments`),
  };
}

function toolMessage(message: JsonObject, path: string): CanonicalMessage {
  const toolCallId = expectName(own(message, "tool_call_id"), `${path}.tool_call_id`);
  const raw = own(message, "content");
  const content: TextPart[] =
    typeof raw === "string" ? [{ type: "text", text: raw }] : textParts(raw, `${path}.content`);
  return { role: "tool", content: [{ type: "tool_result", toolCallId, content }] };
}

function parseTools(value: unknown): CanonicalTool[] | undefined {
  if (absent(value)) return undefined;
  return expectArray(value, "tools").map((raw, index) => {
    const path = `tools[${index}]`;
    const tool = expectObject(raw, path);
    const type = own(tool, "type");
    if (type !== "function") throw bad(`\`${path}.type\` must be "function" (got ${quote(type)}).`);
    const fn = expectObject(own(tool, "function"), `${path}.function`);
    const parsed: CanonicalTool = {
      name: expectName(own(fn, "name"), `${path}.function.name`),
      // No parameters means a function without arguments.
      parameters: optionalSchema(own(fn, "parameters"), `${path}.function.parameters`) ?? {
        type: "object",
        properties: {},
      },
    };
    const description = optionalString(own(fn, "description"), `${path}.function.description`);
    if (description !== undefined) parsed.description = description;
    optionalBoolean(own(fn, "strict"), `${path}.function.strict`);
    return parsed;
  });
}

function parseToolChoice(value: unknown): ToolChoice | undefined {
  if (absent(value)) return undefined;
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  if (typeof value === "string") {
    throw bad(`\`tool_choice\` must be "auto", "none", "required" or a function (got ${quote(value)}).`);
  }
  const choice = expectObject(value, "tool_choice");
  if (own(choice, "type") !== "function") throw bad('`tool_choice.type` must be "function".');
  const fn = expectObject(own(choice, "function"), "tool_choice.function");
  return { type: "tool", name: expectName(own(fn, "name"), "tool_choice.function.name") };
}

function parseResponseFormat(value: unknown): ResponseFormat | undefined {
  if (absent(value)) return undefined;
  const format = expectObject(value, "response_format");
  const type = own(format, "type");
  switch (type) {
    case "text":
    case "json_object":
      return { type };
    case "json_schema": {
      const spec = expectObject(own(format, "json_schema"), "response_format.json_schema");
      const parsed: ResponseFormat = {
        type: "json_schema",
        name: expectName(own(spec, "name"), "response_format.json_schema.name"),
        schema: optionalSchema(own(spec, "schema"), "response_format.json_schema.schema") ?? {},
      };
      const strict = optionalBoolean(own(spec, "strict"), "response_format.json_schema.strict");
      if (strict !== undefined) parsed.strict = strict;
      return parsed;
    }
    default:
      throw bad(
        `\`response_format.type\` must be "text", "json_object" or "json_schema" (got ${quote(type)}).`,
      );
  }
}
