import type {
  CanonicalMessage,
  CanonicalRequest,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolResultPart,
} from "../canonical/types.js";
import { bearer, jsonPost } from "./http.js";
import { imageBase64, remoteImageUrl } from "./images.js";
import { argumentsObject } from "./json-args.js";
import { compact, type JsonRecord } from "./shape.js";
import { toolNamesById } from "./tool-ids.js";
import type { UpstreamHttpRequest, UpstreamTarget } from "./types.js";

/**
 * Ollama's native chat, `POST {base}/api/chat`. Messages hold one text `content` plus `images`
 * (bare base64, no `data:` prefix); tool calls carry their arguments as an object; sampling goes
 * in `options` (`num_predict` is the output limit); `format` is `"json"` or a JSON schema.
 *
 * Ollama cannot fetch images: a remote image URL is kept as the text `[image: <url>]` so the
 * model at least knows one was there. It has no tool_choice either: `none` sends no tools, a named
 * tool sends only that tool, and `required` cannot be enforced.
 * `stream` defaults to true on Ollama, so it is always sent.
 */
export function buildOllamaRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const choice = request.toolChoice;
  const tools =
    choice?.type === "none"
      ? undefined
      : choice?.type === "tool"
        ? request.tools?.filter((tool) => tool.name === choice.name)
        : request.tools;
  const options = compact({
    num_predict: request.maxTokens,
    temperature: request.temperature,
    top_p: request.topP,
    stop: request.stop && request.stop.length > 0 ? request.stop : undefined,
  } as JsonRecord);
  const body = compact({
    model: target.upstreamModel,
    messages: messages(request),
    tools:
      tools && tools.length > 0
        ? tools.map((tool) => ({
            type: "function",
            function: compact({
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            }),
          }))
        : undefined,
    format: format(request.responseFormat),
    options: Object.keys(options).length > 0 ? options : undefined,
    stream: request.stream,
  } as JsonRecord);
  return jsonPost(
    `${target.baseUrl}/api/chat`,
    request.stream ? "application/x-ndjson" : "application/json",
    bearer(target.apiKey),
    body,
  );
}

function format(responseFormat: ResponseFormat | undefined): unknown {
  if (!responseFormat || responseFormat.type === "text") return undefined;
  return responseFormat.type === "json_object" ? "json" : responseFormat.schema;
}

function messages(request: CanonicalRequest): JsonRecord[] {
  const out: JsonRecord[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  const names = toolNamesById(request.messages);
  for (const message of request.messages) {
    if (message.role === "assistant") {
      const assistant = assistantMessage(message);
      if (assistant) out.push(assistant);
      continue;
    }
    // Tool results become tool messages, the rest one user message per run, in order.
    let userParts: Array<TextPart | ImagePart> = [];
    const flushUser = () => {
      if (userParts.length > 0) out.push({ role: "user", ...textAndImages(userParts) });
      userParts = [];
    };
    for (const part of message.content) {
      if (part.type === "tool_result") {
        flushUser();
        out.push(toolMessage(part, names));
      } else if (part.type === "text" || part.type === "image") {
        userParts.push(part);
      }
    }
    flushUser();
  }
  return out;
}

function assistantMessage(message: CanonicalMessage): JsonRecord | undefined {
  const text = message.content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
  const calls = message.content.flatMap((part) =>
    part.type === "tool_call"
      ? [{ function: { name: part.name, arguments: argumentsObject(part.arguments) } }]
      : [],
  );
  if (text === "" && calls.length === 0) return undefined;
  return compact({ role: "assistant", content: text, tool_calls: calls.length > 0 ? calls : undefined });
}

function toolMessage(part: ToolResultPart, names: Map<string, string>): JsonRecord {
  return compact({
    role: "tool",
    tool_name: part.name ?? names.get(part.toolCallId),
    ...textAndImages(part.content),
  });
}

/** One `content` string (text parts on their own lines) and the `images` base64 list. */
function textAndImages(parts: Array<TextPart | ImagePart>): { content: string; images?: string[] } {
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      texts.push(part.text);
      continue;
    }
    const bytes = imageBase64(part);
    if (bytes) images.push(bytes.data);
    else texts.push(`[image: ${remoteImageUrl(part) ?? ""}]`);
  }
  return images.length > 0 ? { content: texts.join("\n"), images } : { content: texts.join("\n") };
}
