import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { FakeBehaviour, RecordedRequest } from "./fake-behaviour.js";
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  decideReply,
  emptySummary,
  type FakeReply,
  objectText,
  type RequestSummary,
  wordChunks,
} from "./fake-reply.js";
import { type StreamFrame, sendJson, sendStream, sse } from "./fake-stream.js";

/**
 * The Gemini API wire format (`models/{model}:generateContent` and `:streamGenerateContent`).
 * Accepts the REST API's camelCase and its snake_case aliases.
 * @see https://ai.google.dev/api/generate-content
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting (error codes)
 */

/** `/v1beta/models/{model}:{method}`, or undefined for any other path. */
export function matchGeminiPath(pathname: string): { model: string; method: string } | undefined {
  const match = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(pathname);
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1]!), method: match[2]! };
}

const STATUS_NAMES: Record<number, { status: string; message: string }> = {
  400: { status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." },
  401: { status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials." },
  403: { status: "PERMISSION_DENIED", message: "The caller does not have permission." },
  404: { status: "NOT_FOUND", message: "Requested entity was not found." },
  429: {
    status: "RESOURCE_EXHAUSTED",
    message: "You exceeded your current quota, please check your plan and billing details.",
  },
  500: { status: "INTERNAL", message: "An internal error has occurred." },
  503: { status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  504: { status: "DEADLINE_EXCEEDED", message: "Deadline expired before operation could complete." },
};

/** Google's error body; with a `RetryInfo` detail when a retry delay is known. */
export function geminiError(status: number, message?: string, retryAfterSeconds?: number) {
  const known = STATUS_NAMES[status] ?? {
    status: status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION",
    message: `Upstream error ${status}.`,
  };
  const details =
    retryAfterSeconds === undefined
      ? undefined
      : [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` }];
  return {
    error: {
      code: status,
      message: message ?? known.message,
      status: known.status,
      ...(details ? { details } : {}),
    },
  };
}

function field(record: Record<string, unknown> | undefined, camel: string, snake: string): unknown {
  return record?.[camel] ?? record?.[snake];
}

/** The provider-neutral summary of a GenerateContentRequest body. */
export function summarizeGemini(body: unknown): RequestSummary {
  const request = asRecord(body) ?? {};
  const summary = emptySummary();
  const texts: string[] = [];
  const system = asRecord(field(request, "systemInstruction", "system_instruction"));
  for (const part of asArray(system?.parts)) {
    const text = asString(asRecord(part)?.text);
    if (text) texts.push(text);
  }
  let lastRole: string | undefined;
  for (const item of asArray(request.contents)) {
    const content = asRecord(item);
    if (!content) continue;
    const role = asString(content.role) ?? "user";
    lastRole = role;
    const partTexts: string[] = [];
    let images = 0;
    let toolResult: string | undefined;
    for (const p of asArray(content.parts)) {
      const part = asRecord(p);
      const text = asString(part?.text);
      const functionResponse = asRecord(field(part, "functionResponse", "function_response"));
      if (text !== undefined) partTexts.push(text);
      else if (field(part, "inlineData", "inline_data") || field(part, "fileData", "file_data")) images++;
      else if (functionResponse) toolResult = objectText(functionResponse.response);
    }
    const text = partTexts.join(" ");
    if (text) texts.push(text);
    if (toolResult !== undefined) texts.push(toolResult);
    summary.toolResult = role === "model" ? undefined : toolResult;
    if (role === "user" && toolResult === undefined) {
      summary.lastUserText = text;
      summary.images = images;
    }
  }
  summary.lastIsUser = lastRole === "user" && summary.toolResult === undefined;
  summary.allText = texts.join(" ");
  for (const tool of asArray(request.tools)) {
    for (const declaration of asArray(
      field(asRecord(tool), "functionDeclarations", "function_declarations"),
    )) {
      const name = asString(asRecord(declaration)?.name);
      if (name !== undefined) summary.tools.push(name);
    }
  }
  const config = asRecord(field(request, "generationConfig", "generation_config"));
  summary.json = field(config, "responseMimeType", "response_mime_type") === "application/json";
  summary.maxTokens = asNumber(field(config, "maxOutputTokens", "max_output_tokens"));
  return summary;
}

const FINISH: Record<FakeReply["finish"], string> = { stop: "STOP", length: "MAX_TOKENS", tool_call: "STOP" };

function usageMetadata(reply: FakeReply, final: boolean) {
  const prompt = {
    promptTokenCount: reply.inputTokens,
    ...(final ? { candidatesTokenCount: reply.outputTokens } : {}),
    totalTokenCount: reply.inputTokens + (final ? reply.outputTokens : 0),
    ...(reply.cachedTokens > 0 ? { cachedContentTokenCount: reply.cachedTokens } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: reply.inputTokens }],
  };
  return final && reply.cachedTokens > 0
    ? { ...prompt, cacheTokensDetails: [{ modality: "TEXT", tokenCount: reply.cachedTokens }] }
    : prompt;
}

function hasApiKey(request: RecordedRequest): boolean {
  if (request.headers["x-goog-api-key"]) return true;
  const query = request.path.indexOf("?");
  return query >= 0 && new URLSearchParams(request.path.slice(query + 1)).has("key");
}

/** POST /v1beta/models/{model}:generateContent | :streamGenerateContent[?alt=sse]. */
export function respondGemini(request: RecordedRequest, behaviour: FakeBehaviour, res: ServerResponse): void {
  const url = new URL(request.path, "http://fake");
  const route = matchGeminiPath(url.pathname)!;
  const body = asRecord(request.body);
  const rejection: [number, string] | undefined = !hasApiKey(request)
    ? [
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      ]
    : !body || !Array.isArray(body.contents) || body.contents.length === 0
      ? [400, "* GenerateContentRequest.contents: contents is not specified"]
      : undefined;
  if (rejection || !body) {
    const [status, message] = rejection ?? [400, "Invalid JSON payload received."];
    sendJson(res, status, geminiError(status, message), behaviour);
    return;
  }

  const reply = decideReply(summarizeGemini(body), behaviour);
  const responseId = randomBytes(16).toString("base64url");
  const finishReason = FINISH[reply.finish];
  const response = (parts: unknown[], final: boolean) => ({
    candidates: [{ content: { parts, role: "model" }, ...(final ? { finishReason } : {}), index: 0 }],
    usageMetadata: usageMetadata(reply, final),
    modelVersion: route.model,
    responseId,
  });
  const call = reply.toolCall && {
    functionCall: { name: reply.toolCall.name, args: reply.toolCall.arguments },
  };
  if (route.method === "generateContent") {
    sendJson(res, 200, response(call ? [call] : [{ text: reply.text }], true), behaviour);
    return;
  }
  // Gemini streams whole parts: a function call arrives in one chunk, never as argument deltas.
  const chunks = call
    ? [response([call], true)]
    : wordChunks(reply.text).map((word, i, all) => response([{ text: word }], i === all.length - 1));
  if (url.searchParams.get("alt") === "sse") {
    const frames: StreamFrame[] = chunks.map((chunk) => ({
      text: sse(JSON.stringify(chunk)),
      content: true,
    }));
    sendStream(res, behaviour, "text/event-stream", frames);
    return;
  }
  // Without alt=sse the API streams one JSON array, element by element.
  const frames: StreamFrame[] = chunks.map((chunk, i) => ({
    text: `${i === 0 ? "[" : ",\r\n"}${JSON.stringify(chunk)}`,
    content: true,
  }));
  frames.push({ text: "]", content: false });
  sendStream(res, behaviour, "application/json; charset=UTF-8", frames);
}
