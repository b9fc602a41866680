import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentPart,
  ImagePart,
  ResponseFormat,
  ToolChoice,
  ToolResultPart,
} from "../canonical/types.js";
import { geminiParameters, geminiSchema } from "./gemini-schema.js";
import { jsonPost } from "./http.js";
import { imageBase64, mediaTypeFromUrl, remoteImageUrl } from "./images.js";
import { argumentsObject } from "./json-args.js";
import { compact, type JsonRecord } from "./shape.js";
import { toolNamesById } from "./tool-ids.js";
import type { UpstreamHttpRequest, UpstreamTarget } from "./types.js";

/**
 * Gemini 3 refuses a replayed `functionCall` part without the `thoughtSignature` it was sent with
 * (HTTP 400 "Function call is missing a thought_signature"). The hub does not carry signatures, so
 * this documented sentinel replaces them (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

interface GeminiContent {
  role: "user" | "model";
  parts: JsonRecord[];
}

/**
 * `POST {base}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` (without
 * `alt=sse` the stream is one JSON array instead of SSE).
 */
export function buildGeminiRequest(request: CanonicalRequest, target: UpstreamTarget): UpstreamHttpRequest {
  const model = target.upstreamModel.replace(/^models\//, "");
  // Tuned models live under their own collection; everything else under models/.
  const path = model.startsWith("tunedModels/") ? model : `models/${encodeURIComponent(model)}`;
  const method = request.stream ? "streamGenerateContent?alt=sse" : "generateContent";
  // Gemma models on the Gemini API refuse systemInstruction; their system text leads the first turn.
  const systemInContents = /gemma/i.test(model);
  const contents = geminiContents(request.messages, { signatures: needsThoughtSignatures(model) });
  if (request.system && systemInContents) prependSystem(contents, request.system);
  const hasTools = (request.tools?.length ?? 0) > 0;
  const generationConfig = compact({
    maxOutputTokens: request.maxTokens,
    temperature: request.temperature,
    topP: request.topP,
    stopSequences: request.stop && request.stop.length > 0 ? request.stop : undefined,
    ...jsonConfig(request.responseFormat),
  } as JsonRecord);
  const body = compact({
    systemInstruction:
      request.system && !systemInContents ? { parts: [{ text: request.system }] } : undefined,
    contents,
    tools: hasTools
      ? [
          {
            functionDeclarations: request.tools?.map((tool) =>
              compact({
                name: tool.name,
                description: tool.description,
                parameters: geminiParameters(tool.parameters),
              }),
            ),
          },
        ]
      : undefined,
    toolConfig:
      hasTools && request.toolChoice ? { functionCallingConfig: toolChoice(request.toolChoice) } : undefined,
    generationConfig: Object.keys(generationConfig).length > 0 ? generationConfig : undefined,
  } as JsonRecord);
  const auth: Record<string, string> = target.apiKey ? { "x-goog-api-key": target.apiKey } : {};
  return jsonPost(
    `${target.baseUrl}/${path}:${method}`,
    request.stream ? "text/event-stream" : "application/json",
    auth,
    body,
  );
}

/** Gemini 3 and later (by the model name) validate thought signatures on replayed calls. */
export function needsThoughtSignatures(model: string): boolean {
  const major = /gemini-(\d+)/i.exec(model)?.[1];
  return major !== undefined && Number(major) >= 3;
}

function toolChoice(choice: ToolChoice): JsonRecord {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

function jsonConfig(format: ResponseFormat | undefined): JsonRecord {
  if (!format || format.type === "text") return {};
  if (format.type === "json_object") return { responseMimeType: "application/json" };
  return { responseMimeType: "application/json", responseSchema: geminiSchema(format.schema) };
}

/**
 * `contents`: user turns (tool results included, as `functionResponse` parts) and `model` turns,
 * consecutive same-role turns merged. Gemini matches results to calls by name, so a result's
 * name comes from the part or from the earlier call with the same id; ids are sent too (the API
 * echoes them when it made them).
 */
export function geminiContents(
  history: CanonicalMessage[],
  options: { signatures: boolean },
): GeminiContent[] {
  const names = toolNamesById(history);
  const out: GeminiContent[] = [];
  for (const message of history) {
    const role = message.role === "assistant" ? "model" : "user";
    const parts = message.content.flatMap((part) => geminiParts(part, role, names, options.signatures));
    if (parts.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

function geminiParts(
  part: ContentPart,
  role: "user" | "model",
  names: Map<string, string>,
  signatures: boolean,
): JsonRecord[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ text: part.text }];
    case "image":
      return [imagePart(part)];
    case "tool_call":
      if (role !== "model") return [];
      return [
        compact({
          functionCall: { id: part.id, name: part.name, args: argumentsObject(part.arguments) },
          thoughtSignature: signatures ? SKIP_THOUGHT_SIGNATURE : undefined,
        }),
      ];
    case "tool_result":
      return role === "user" ? functionResponse(part, names) : [];
  }
}

/**
 * A tool result: the text under `output` (or `error` for a failed call), as the API documents for
 * `FunctionResponse.response`; images follow as their own parts (older models take no parts
 * inside a function response).
 */
function functionResponse(part: ToolResultPart, names: Map<string, string>): JsonRecord[] {
  const name = part.name ?? names.get(part.toolCallId);
  if (!name)
    throw new Error(
      `gemini: the tool result for call "${part.toolCallId}" has no tool name and no earlier tool call with that id`,
    );
  const text = part.content.flatMap((inner) => (inner.type === "text" ? [inner.text] : [])).join("\n");
  const images = part.content.filter((inner): inner is ImagePart => inner.type === "image");
  return [
    {
      functionResponse: {
        id: part.toolCallId,
        name,
        response: part.isError ? { error: text } : { output: text },
      },
    },
    ...images.map(imagePart),
  ];
}

/** Bytes (base64 or `data:` URL) go inline; a remote URL goes as `fileData`. */
function imagePart(part: ImagePart): JsonRecord {
  const bytes = imageBase64(part);
  if (bytes) return { inlineData: { mimeType: bytes.mediaType, data: bytes.data } };
  const url = remoteImageUrl(part) ?? "";
  return { fileData: compact({ mimeType: part.mediaType ?? mediaTypeFromUrl(url), fileUri: url }) };
}

function prependSystem(contents: GeminiContent[], system: string): void {
  const first = contents[0];
  if (first && first.role === "user") first.parts.unshift({ text: `${system}\n\n` });
  else contents.unshift({ role: "user", parts: [{ text: system }] });
}
