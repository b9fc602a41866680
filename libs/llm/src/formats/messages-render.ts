import type { CanonicalResponse, CanonicalUsage, StopReason } from "../canonical/types.js";
import type { RenderContext } from "./types.js";

/**
 * Canonical response -> Anthropic Messages wire objects, shared by the JSON renderer and the
 * stream encoder.
 * @see https://docs.anthropic.com/en/api/messages
 */

export type MessagesStopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence" | "refusal";

export function messagesStopReason(reason: StopReason): MessagesStopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    // The hub does not record which stop sequence matched, so a stop is an ordinary end of turn.
    case "stop":
    case "error":
      return "end_turn";
  }
}

/**
 * Anthropic's `input_tokens` excludes cache reads and writes, which it reports separately; the
 * hub's inputTokens includes them. Clamped so an inconsistent provider count cannot go negative.
 */
export function messagesUsage(usage: CanonicalUsage) {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
  };
}

/** Tool-call arguments are JSON text in the hub; Anthropic wants the object (`{}` if unreadable). */
export function toolInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function renderMessagesResponse(response: CanonicalResponse, context: RenderContext) {
  const content: Array<
    | { type: "text"; text: string }
    | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  > = [];
  for (const part of response.content) {
    const last = content.at(-1);
    if (part.type === "text") {
      // Adjacent text parts are one block, as the model would have written them.
      if (last?.type === "text") last.text += part.text;
      else content.push({ type: "text", text: part.text });
    } else {
      content.push({ type: "tool_use", id: part.id, name: part.name, input: toolInput(part.arguments) });
    }
  }
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: messagesStopReason(response.stopReason),
    stop_sequence: null,
    usage: messagesUsage(response.usage),
  };
}
