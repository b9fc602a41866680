import type {
  CanonicalMessage,
  CanonicalRequest,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolChoice,
  ToolResultPart,
} from "../canonical/types.js";
import { bearer, jsonPost } from "./http.js";
import { imageUrl } from "./images.js";
import type { OpenAiFlavor } from "./openai-flavor.js";
import { compact, type JsonRecord } from "./shape.js";
import { mistralToolCallId, toolNamesById } from "./tool-ids.js";
import type { UpstreamHttpRequest, UpstreamTarget } from "./types.js";

/** `POST {base}/chat/completions` for the OpenAI-compatible kinds. */
export function buildOpenAiRequest(
  request: CanonicalRequest,
  target: UpstreamTarget,
  flavor: OpenAiFlavor,
): UpstreamHttpRequest {
  const hasTools = (request.tools?.length ?? 0) > 0;
  const body = compact({
    model: target.upstreamModel,
    messages: messages(request, flavor),
    tools: hasTools
      ? request.tools?.map((tool) => ({
          type: "function",
          function: compact({ name: tool.name, description: tool.description, parameters: tool.parameters }),
        }))
      : undefined,
    // A tool_choice without tools is an error on OpenAI; without tools there is nothing to choose.
    tool_choice: hasTools && request.toolChoice ? toolChoice(request.toolChoice, flavor) : undefined,
    [flavor.maxTokensField]: request.maxTokens,
    temperature: request.temperature,
    top_p: request.topP,
    stop: request.stop && request.stop.length > 0 ? request.stop : undefined,
    response_format: responseFormat(request.responseFormat),
    user: flavor.sendsUser ? request.user : undefined,
    stream: request.stream,
    stream_options: request.stream && flavor.streamUsageOption ? { include_usage: true } : undefined,
  } as JsonRecord);
  return jsonPost(
    `${target.baseUrl}/chat/completions`,
    request.stream ? "text/event-stream" : "application/json",
    bearer(target.apiKey),
    body,
  );
}

function toolChoice(choice: ToolChoice, flavor: OpenAiFlavor): unknown {
  switch (choice.type) {
    case "auto":
    case "none":
      return choice.type;
    case "required":
      return flavor.requiredToolChoice;
    case "tool":
      return { type: "function", function: { name: choice.name } };
  }
}

function responseFormat(format: ResponseFormat | undefined): unknown {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: compact({ name: format.name, schema: format.schema, strict: format.strict }),
  };
}

function messages(request: CanonicalRequest, flavor: OpenAiFlavor): JsonRecord[] {
  const out: JsonRecord[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  const names = toolNamesById(request.messages);
  const callId = flavor.mistralMessages ? mistralToolCallId : (id: string) => id;
  // Tool messages must follow their assistant message directly, so images returned by tools
  // (which a tool message cannot carry) wait and go in one user message after the last of them.
  let toolImages: ImagePart[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    out.push({
      role: "user",
      content: [
        { type: "text", text: "Images returned by the tool calls above:" },
        ...toolImages.map((image) => imagePart(image, flavor)),
      ],
    });
    toolImages = [];
  };

  for (const message of request.messages) {
    if (message.role === "assistant") {
      flushToolImages();
      const assistant = assistantMessage(message, callId);
      if (assistant) out.push(assistant);
      continue;
    }
    // user and tool messages: tool results become tool messages, everything else user content,
    // in the order they came.
    let userParts: Array<TextPart | ImagePart> = [];
    const flushUser = () => {
      if (userParts.length === 0) return;
      flushToolImages();
      out.push({ role: "user", content: userContent(userParts, flavor) });
      userParts = [];
    };
    for (const part of message.content) {
      if (part.type === "tool_result") {
        flushUser();
        out.push(toolMessage(part, names, callId, flavor));
        toolImages.push(...part.content.filter((inner): inner is ImagePart => inner.type === "image"));
      } else if (part.type === "text" || part.type === "image") {
        userParts.push(part);
      }
    }
    flushUser();
  }
  flushToolImages();
  return out;
}

function assistantMessage(message: CanonicalMessage, callId: (id: string) => string): JsonRecord | undefined {
  const text = message.content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
  const calls = message.content.flatMap((part) =>
    part.type === "tool_call"
      ? [{ id: callId(part.id), type: "function", function: { name: part.name, arguments: part.arguments } }]
      : [],
  );
  if (text === "" && calls.length === 0) return undefined;
  return compact({
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    tool_calls: calls.length > 0 ? calls : undefined,
  });
}

function toolMessage(
  part: ToolResultPart,
  names: Map<string, string>,
  callId: (id: string) => string,
  flavor: OpenAiFlavor,
): JsonRecord {
  return compact({
    role: "tool",
    tool_call_id: callId(part.toolCallId),
    name: flavor.mistralMessages ? (part.name ?? names.get(part.toolCallId)) : undefined,
    content: part.content
      .filter((inner): inner is TextPart => inner.type === "text")
      .map((inner) => inner.text)
      .join("\n"),
  });
}

/** One text part stays a plain string (what every compatible server understands); anything else, parts. */
function userContent(parts: Array<TextPart | ImagePart>, flavor: OpenAiFlavor): unknown {
  const only = parts[0];
  if (parts.length === 1 && only?.type === "text") return only.text;
  return parts.map((part) =>
    part.type === "text" ? { type: "text", text: part.text } : imagePart(part, flavor),
  );
}

function imagePart(part: ImagePart, flavor: OpenAiFlavor): JsonRecord {
  const url = imageUrl(part);
  if (flavor.mistralMessages) return { type: "image_url", image_url: url };
  return { type: "image_url", image_url: compact({ url, detail: part.detail }) };
}
