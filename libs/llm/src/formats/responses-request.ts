import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  ImagePart,
  ResponseFormat,
  TextPart,
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
  own,
  quote,
} from "./validate.js";

/**
 * `POST /v1/responses` body -> canonical request. `previous_response_id` and `store` are returned
 * beside it: the caller resolves the stored conversation and decides whether to keep this one.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function parseResponsesRequest(body: unknown): ParsedClientRequest {
  const record = expectBody(body);
  const previousResponseId = optionalString(own(record, "previous_response_id"), "previous_response_id");
  const system: string[] = [];
  const instructions = optionalString(own(record, "instructions"), "instructions");
  if (instructions !== undefined && instructions !== "") system.push(instructions);

  const messages: CanonicalMessage[] = [];
  const input = own(record, "input");
  if (typeof input === "string") messages.push({ role: "user", content: [{ type: "text", text: input }] });
  else if (Array.isArray(input)) {
    input.forEach((item, index) => {
      parseItem(item, `input[${index}]`, system, messages);
    });
  } else if (!absent(input)) throw bad("`input` must be a string or an array of input items.");
  // Without a previous response to continue, there must be something to answer.
  if (messages.length === 0 && previousResponseId === undefined) {
    throw bad("`input` must contain at least one message (or set `previous_response_id`).");
  }
  nameToolResults(messages);

  const request: CanonicalRequest = {
    model: optionalModel(record),
    messages,
    stream: optionalBoolean(own(record, "stream"), "stream") ?? false,
  };
  if (system.length > 0) request.system = system.join("\n\n");
  const tools = parseTools(own(record, "tools"));
  if (tools) request.tools = tools;
  const toolChoice = parseToolChoice(own(record, "tool_choice"));
  if (toolChoice) request.toolChoice = toolChoice;
  const maxTokens = optionalPositiveInteger(own(record, "max_output_tokens"), "max_output_tokens");
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = optionalNumber(own(record, "temperature"), "temperature");
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(own(record, "top_p"), "top_p");
  if (topP !== undefined) request.topP = topP;
  const responseFormat = parseTextFormat(own(record, "text"));
  if (responseFormat) request.responseFormat = responseFormat;
  const user =
    optionalString(own(record, "user"), "user") ??
    optionalString(own(record, "safety_identifier"), "safety_identifier");
  if (user !== undefined) request.user = user;

  const parsed: ParsedClientRequest = {
    request,
    // The API stores responses unless told not to.
    store: optionalBoolean(own(record, "store"), "store") ?? true,
  };
  if (previousResponseId !== undefined) parsed.previousResponseId = previousResponseId;
  return parsed;
}

function parseItem(raw: unknown, path: string, system: string[], out: CanonicalMessage[]): void {
  const item = expectObject(raw, path);
  const type = own(item, "type");
  switch (type) {
    // Easy input messages (`{ role, content }`) have no type; full ones say "message".
    case undefined:
    case null:
    case "message":
      parseMessage(item, path, system, out);
      return;
    case "function_call": {
      const call = {
        type: "tool_call" as const,
        id: expectName(own(item, "call_id"), `${path}.call_id`),
        name: expectName(own(item, "name"), `${path}.name`),
        arguments: expectString(own(item, "arguments"), `${path}.arguments`),
      };
      // Calls follow the assistant text of the same turn: one assistant message holds them all,
      // as chat-style providers require.
      const last = out.at(-1);
      if (last?.role === "assistant") last.content.push(call);
      else out.push({ role: "assistant", content: [call] });
      return;
    }
    case "function_call_output":
      out.push({
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolCallId: expectName(own(item, "call_id"), `${path}.call_id`),
            content: toolOutput(own(item, "output"), `${path}.output`),
          },
        ],
      });
      return;
    // Reasoning items come back when a client replays an earlier output; their encrypted content
    // is only meaningful to the model that wrote it, so they are left out rather than refused.
    case "reasoning":
      return;
    default:
      throw bad(
        `\`${path}.type\` must be "message", "function_call", "function_call_output" or "reasoning" (got ${quote(type)}).`,
      );
  }
}

function parseMessage(item: JsonObject, path: string, system: string[], out: CanonicalMessage[]): void {
  const role = own(item, "role");
  if (typeof role !== "string") throw bad(`\`${path}.role\` must be a string.`);
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") {
    throw bad(
      `\`${path}.role\` must be one of "user", "assistant", "system", "developer" (got ${quote(role)}).`,
    );
  }
  // Images are user input; instructions and earlier assistant turns are text only.
  const parts = contentParts(own(item, "content"), `${path}.content`, role === "user");
  if (role === "user" || role === "assistant") {
    out.push({ role, content: parts });
    return;
  }
  system.push(parts.map((part) => (part.type === "text" ? part.text : "")).join("\n\n"));
}

/** Message content: a string, or `input_text` / `output_text` / `refusal` / `input_image` parts. */
function contentParts(content: unknown, path: string, allowImages: boolean): Array<TextPart | ImagePart> {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw bad(`\`${path}\` must be a string or an array of content parts.`);
  return content.map((raw, index): TextPart | ImagePart => {
    const partPath = `${path}[${index}]`;
    const part = expectObject(raw, partPath);
    const type = own(part, "type");
    switch (type) {
      // Input and output text are the same to the hub: who said it is the message's role.
      case "input_text":
      case "output_text":
        return { type: "text", text: expectString(own(part, "text"), `${partPath}.text`) };
      case "refusal":
        return { type: "text", text: expectString(own(part, "refusal"), `${partPath}.refusal`) };
      case "input_image":
        if (!allowImages) throw bad(`\`${partPath}\`: images are only accepted in user messages.`);
        return imagePart(part, partPath);
      case "input_file":
        throw bad(`\`${partPath}.type\` "input_file" is not supported; send text or images.`);
      default:
        throw bad(
          `\`${partPath}.type\` must be "input_text", "output_text" or "input_image" (got ${quote(type)}).`,
        );
    }
  });
}

function imagePart(part: JsonObject, path: string): ImagePart {
  if (!absent(own(part, "file_id")) && absent(own(part, "image_url"))) {
    throw bad(`\`${path}.file_id\` is not supported; send \`image_url\` (an https or data: URL).`);
  }
  const image: ImagePart = { type: "image", url: expectString(own(part, "image_url"), `${path}.image_url`) };
  const detail = optionalString(own(part, "detail"), `${path}.detail`);
  if (detail !== undefined) image.detail = detail;
  return image;
}

/** `function_call_output.output`: a string, or text / image parts. */
function toolOutput(output: unknown, path: string): Array<TextPart | ImagePart> {
  if (typeof output === "string") return [{ type: "text", text: output }];
  if (Array.isArray(output)) return contentParts(output, path, true);
  // Some clients send the result object itself; it is the tool's JSON answer.
  if (typeof output === "object" && output !== null) return [{ type: "text", text: jsonText(output, path) }];
  throw bad(`\`${path}\` must be a string or an array of content parts.`);
}

function parseTools(value: unknown): CanonicalTool[] | undefined {
  if (absent(value)) return undefined;
  return expectArray(value, "tools").map((raw, index) => {
    const path = `tools[${index}]`;
    const tool = expectObject(raw, path);
    const type = own(tool, "type");
    if (type !== "function") {
      throw bad(`\`${path}.type\` ${quote(type)} is not supported; only "function" tools are.`);
    }
    const parsed: CanonicalTool = {
      name: expectName(own(tool, "name"), `${path}.name`),
      parameters: optionalSchema(own(tool, "parameters"), `${path}.parameters`) ?? {
        type: "object",
        properties: {},
      },
    };
    const description = optionalString(own(tool, "description"), `${path}.description`);
    if (description !== undefined) parsed.description = description;
    optionalBoolean(own(tool, "strict"), `${path}.strict`);
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
  return { type: "tool", name: expectName(own(choice, "name"), "tool_choice.name") };
}

/** `text.format`: the responses spelling of `response_format` (schema fields inline). */
function parseTextFormat(value: unknown): ResponseFormat | undefined {
  if (absent(value)) return undefined;
  const text = expectObject(value, "text");
  const rawFormat = own(text, "format");
  if (absent(rawFormat)) return undefined;
  const format = expectObject(rawFormat, "text.format");
  const type = own(format, "type");
  switch (type) {
    case "text":
    case "json_object":
      return { type };
    case "json_schema": {
      const parsed: ResponseFormat = {
        type: "json_schema",
        name: expectName(own(format, "name"), "text.format.name"),
        schema: optionalSchema(own(format, "schema"), "text.format.schema") ?? {},
      };
      const strict = optionalBoolean(own(format, "strict"), "text.format.strict");
      if (strict !== undefined) parsed.strict = strict;
      return parsed;
    }
    default:
      throw bad(`\`text.format.type\` must be "text", "json_object" or "json_schema" (got ${quote(type)}).`);
  }
}
