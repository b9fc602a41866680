import type { CanonicalMessage } from "../canonical/types.js";

/**
 * Tool results in chat (`role: "tool"`), responses (`function_call_output`) and messages
 * (`tool_result`) carry only the call id, but some providers (gemini) need the tool's name with the
 * result. The name is in the assistant turn that made the call, so it is filled in from history
 * here, once, instead of in every provider adapter. Results whose call is not in the history (the
 * caller may prepend a stored conversation later) keep no name.
 */
export function nameToolResults(messages: CanonicalMessage[]): void {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === "tool_call") names.set(part.id, part.name);
      else if (part.type === "tool_result" && part.name === undefined) {
        const name = names.get(part.toolCallId);
        if (name !== undefined) part.name = name;
      }
    }
  }
}
