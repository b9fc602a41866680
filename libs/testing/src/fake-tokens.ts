/**
 * The fake upstream's tokenizer: whitespace-separated words. Deterministic and cheap, so tests
 * can predict usage exactly; the gateway never relies on it (it reads usage from the response).
 */
export function countFakeTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/).length;
}

/** Text of chat messages whose content is a string or an array of `{ type: "text", text }` parts. */
export function chatMessagesText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const parts: string[] = [];
  for (const message of messages) {
    const content = (message as { content?: unknown })?.content;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = (part as { text?: unknown })?.text;
        if (typeof text === "string") parts.push(text);
      }
    }
  }
  return parts.join(" ");
}
