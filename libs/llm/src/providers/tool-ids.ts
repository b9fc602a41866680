import { createHash, randomBytes } from "node:crypto";
import type { CanonicalMessage } from "../canonical/types.js";

/**
 * Tool-call ids cross providers: a conversation may start on one provider and continue on another
 * (fallback, routing), so ids made here must be unique across turns (Anthropic refuses duplicate
 * `tool_use` ids) and ids from elsewhere must be reshaped where a provider restricts them.
 */

/** An id for a provider that has none (Gemini, Ollama): random, so turns never reuse one. */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}

/** Tool names by call id, from the assistant turns of the history (tool results may lack the name). */
export function toolNamesById(messages: CanonicalMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages)
    for (const part of message.content) if (part.type === "tool_call") names.set(part.id, part.name);
  return names;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;

/**
 * Mistral rejects any tool-call id that is not exactly 9 characters of [a-zA-Z0-9] ("Tool call id
 * was ... but must be a-z, A-Z, 0-9, with a length of 9"). Its own ids pass through; others are
 * hashed, the same way for the call and its result, so the pair still matches.
 */
export function mistralToolCallId(id: string): string {
  if (MISTRAL_ID.test(id)) return id;
  const digest = createHash("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += BASE62[(digest[i] ?? 0) % 62];
  return out;
}

/** Anthropic tool_use ids must match ^[a-zA-Z0-9_-]+$; other characters become `_` (same for call and result). */
export function anthropicToolUseId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "toolu_empty" : cleaned;
}
