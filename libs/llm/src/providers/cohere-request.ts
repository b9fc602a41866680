import type {
  CanonicalMessage,
  CanonicalRequest,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolChoice,
} from "../canonical/types.js";
import { bearer, jsonPost } from "./http.js";
import { imageUrl } from "./images.js";
import { compact, type JsonRecord } from "./shape.js";
import type { UpstreamHttpRequest, UpstreamTarget } from "./types.js";

/**
 * Cohere v2 Chat, `POST {base}/v2/chat`: OpenAI-like messages (system / user / assistant / tool,
 * `tool_calls`, `tool_call_id`) with Cohere names for the sampling fields (`p`, `stop_sequences`)
 * and upper-case `tool_choice` values. There is no end-user field, so `user` is not sent.
 */
export function buildCohereRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const choice = request.toolChoice;
  // Cohere can force "some tool" but not a named one: a named choice keeps only that tool.
  const tools =
    choice?.type === "tool" ? request.tools?.filter((tool) => tool.name === choice.name) : request.tools;
  const hasTools = (tools?.length ?? 0) > 0;
  const body = compact({
    model: target.upstreamModel,
    messages: messages(request),
    tools: hasTools
      ? tools?.map((tool) => ({
          type: "function",
          function: compact({ name: tool.name, description: tool.description, parameters: tool.parameters }),
        }))
      : undefined,
    tool_choice: hasTools && choice ? toolChoice(choice) : undefined,
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    p: request.topP,
    stop_sequences: request.stop && request.stop.length > 0 ? request.stop : undefined,
    response_format: responseFormat(request.responseFormat),
    // Cohere documents `stream` as a required boolean.
    stream: request.stream,
  } as JsonRecord);
  return jsonPost(
    `${target.baseUrl}/v2/chat`,
    request.stream ? "text/event-stream" : "application/json",
    bearer(target.apiKey),
    body,
  );
}

/** `REQUIRED` / `NONE`; automatic choice is the default and sent as nothing. */
function toolChoice(choice: ToolChoice): string | undefined {
  if (choice.type === "none") return "NONE";
  if (choice.type === "required" || choice.type === "tool") return "REQUIRED";
  return undefined;
}

function responseFormat(format: ResponseFormat | undefined): unknown {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  return { type: "json_object", json_schema: format.schema };
}

function messages(request: CanonicalRequest): JsonRecord[] {
  const out: JsonRecord[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  // A tool message carries text only: images returned by tools follow the tool messages.
  let toolImages: ImagePart[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    out.push({
      role: "user",
      content: [
        { type: "text", text: "Images returned by the tool calls above:" },
        ...toolImages.map(imagePart),
      ],
    });
    toolImages = [];
  };
  for (const message of request.messages) {
    if (message.role === "assistant") {
      flushToolImages();
      const assistant = assistantMessage(message);
      if (assistant) out.push(assistant);
      continue;
    }
    let userParts: Array<TextPart | ImagePart> = [];
    const flushUser = () => {
      if (userParts.length === 0) return;
      flushToolImages();
      out.push({ role: "user", content: userContent(userParts) });
      userParts = [];
    };
    for (const part of message.content) {
      if (part.type === "tool_result") {
        flushUser();
        out.push({
          role: "tool",
          tool_call_id: part.toolCallId,
          content: part.content.flatMap((inner) => (inner.type === "text" ? [inner.text] : [])).join("\n"),
        });
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

/**
 * With tool calls, Cohere puts the assistant's words in `tool_plan` (its "I will call X" text) and
 * no `content`; without them, the text is `content`.
 */
function assistantMessage(message: CanonicalMessage): JsonRecord | undefined {
  const text = message.content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
  const calls = message.content.flatMap((part) =>
    part.type === "tool_call"
      ? [{ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments } }]
      : [],
  );
  if (calls.length > 0)
    return compact({ role: "assistant", tool_plan: text || undefined, tool_calls: calls });
  return text === "" ? undefined : { role: "assistant", content: text };
}

function userContent(parts: Array<TextPart | ImagePart>): unknown {
  const only = parts[0];
  if (parts.length === 1 && only?.type === "text") return only.text;
  return parts.map((part) => (part.type === "text" ? { type: "text", text: part.text } : imagePart(part)));
}

function imagePart(part: ImagePart): JsonRecord {
  return { type: "image_url", image_url: compact({ url: imageUrl(part), detail: part.detail }) };
}
