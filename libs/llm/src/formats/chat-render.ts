import type { CanonicalResponse, CanonicalUsage, StopReason } from "../canonical/types.js";
import type { RenderContext } from "./types.js";

/**
 * Canonical response -> chat-completions wire objects, shared by the JSON renderer and the stream
 * encoder so both speak the same finish reasons and usage.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export function chatFinishReason(reason: StopReason): ChatFinishReason {
  switch (reason) {
    case "length":
    case "tool_calls":
    case "content_filter":
      return reason;
    // chat has no "error" finish reason; the answer simply ended.
    case "stop":
    case "error":
      return "stop";
  }
}

/** OpenAI counts cached tokens inside prompt_tokens, as the hub does: no arithmetic needed. */
export function chatUsage(usage: CanonicalUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

export function renderChatResponse(response: CanonicalResponse, context: RenderContext) {
  let text = "";
  const toolCalls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> =
    [];
  for (const part of response.content) {
    if (part.type === "text") text += part.text;
    else
      toolCalls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments },
      });
  }
  return {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          // The API answers null, not "", when the model only called tools.
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: chatFinishReason(response.stopReason),
      },
    ],
    usage: chatUsage(response.usage),
  };
}
