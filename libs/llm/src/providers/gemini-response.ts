import type {
  CanonicalResponse,
  CanonicalUsage,
  StopReason,
  TextPart,
  ToolCallPart,
} from "../canonical/types.js";
import { embeddedErrorMessage, malformed, ProviderError } from "./errors.js";
import { argumentsText } from "./json-args.js";
import { array, count, type JsonRecord, record, string } from "./shape.js";
import { SseJsonStreamDecoder } from "./sse-json-decoder.js";
import { newToolCallId } from "./tool-ids.js";

const PROVIDER = "gemini";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "LANGUAGE",
]);
const FAILED = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
  "MISSING_THOUGHT_SIGNATURE",
]);

/**
 * `finishReason`. Gemini says STOP after function calls too, so calls present make it a tool stop;
 * the safety family is a content filter; a broken function call is an error.
 */
export function geminiStopReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason && FILTERED.has(reason)) return "content_filter";
  if (reason && FAILED.has(reason)) return "error";
  return hasToolCalls ? "tool_calls" : "stop";
}

/**
 * `usageMetadata`. `promptTokenCount` includes the cached part (`cachedContentTokenCount`) and
 * tool-use prompts are counted beside it; thinking tokens (`thoughtsTokenCount`) are billed as
 * output but not part of `candidatesTokenCount`.
 */
export function geminiUsage(value: unknown): CanonicalUsage {
  const usage = record(value);
  return {
    inputTokens: count(usage?.promptTokenCount) + count(usage?.toolUsePromptTokenCount),
    outputTokens: count(usage?.candidatesTokenCount) + count(usage?.thoughtsTokenCount),
    cacheReadTokens: count(usage?.cachedContentTokenCount),
    cacheWriteTokens: 0,
  };
}

/** Text and function calls of one candidate's parts; thought summaries (`thought: true`) are not answer text. */
function candidateParts(candidate: JsonRecord | undefined): Array<TextPart | ToolCallPart> {
  const out: Array<TextPart | ToolCallPart> = [];
  for (const item of array(record(candidate?.content)?.parts)) {
    const part = record(item);
    if (!part || part.thought === true) continue;
    const text = string(part.text);
    if (text) out.push({ type: "text", text });
    const call = record(part.functionCall);
    if (call)
      out.push({
        type: "tool_call",
        // Gemini has no call ids unless it sends one; made-up ids are unique across turns.
        id: string(call.id) || newToolCallId(),
        name: string(call.name) ?? "",
        arguments: argumentsText(call.args),
      });
  }
  return out;
}

/** `{candidates:[{content:{role:"model", parts}, finishReason}], usageMetadata, modelVersion, responseId}`. */
export function parseGeminiResponse(value: unknown): CanonicalResponse {
  const body = record(value);
  if (!body) throw malformed(PROVIDER, "the response body is not a JSON object");
  const candidate = record(array(body.candidates)[0]);
  // No candidate: the prompt itself was blocked (promptFeedback.blockReason).
  if (!candidate && !record(body.promptFeedback))
    throw malformed(PROVIDER, 'the response has no "candidates" and no "promptFeedback"');
  const content = candidateParts(candidate);
  const hasToolCalls = content.some((part) => part.type === "tool_call");
  return {
    id: string(body.responseId) ?? "",
    model: string(body.modelVersion) ?? "",
    content,
    stopReason: candidate ? geminiStopReason(string(candidate.finishReason), hasToolCalls) : "content_filter",
    usage: geminiUsage(body.usageMetadata),
  };
}

/**
 * `streamGenerateContent?alt=sse`: every `data:` is a whole GenerateContentResponse holding the
 * next parts; usageMetadata rides on the chunks (the last one is final) and finishReason on the
 * last; there is no `[DONE]`. Function calls arrive whole, one part each.
 */
export class GeminiStreamDecoder extends SseJsonStreamDecoder {
  private calls = 0;

  constructor() {
    super(PROVIDER);
  }

  protected onObject(chunk: JsonRecord): void {
    const error = embeddedErrorMessage(chunk);
    if (error !== undefined) throw new ProviderError(PROVIDER, "stream_error", error);
    this.events.start(string(chunk.responseId) ?? "", string(chunk.modelVersion) ?? "");
    const candidate = record(array(chunk.candidates)[0]);
    for (const part of candidateParts(candidate)) {
      if (part.type === "text") this.events.text(part.text);
      else {
        const key = this.calls++;
        this.events.toolCallStart(key, part.id, part.name);
        this.events.toolCallDelta(key, part.arguments);
      }
    }
    if (record(chunk.usageMetadata)) this.events.usage(geminiUsage(chunk.usageMetadata));
    const reason = string(candidate?.finishReason);
    if (reason) this.events.finish(geminiStopReason(reason, this.events.hasToolCalls));
    else if (!candidate && string(record(chunk.promptFeedback)?.blockReason))
      this.events.finish("content_filter");
  }
}
