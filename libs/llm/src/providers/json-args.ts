import { isRecord } from "./shape.js";

/**
 * Tool-call arguments travel through the hub as JSON text (the OpenAI convention); Anthropic,
 * Gemini and Ollama want an object instead, and answer with one.
 */

/**
 * The arguments as an object. Empty text (a tool without parameters) and text that is not a JSON
 * object (a call cut short by max tokens, a model that emitted garbage) become `{}`: those
 * providers reject a non-object input, and the history would otherwise fail every later turn.
 */
export function argumentsObject(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/** A provider's arguments (object, or already text) as JSON text; absent or null arguments are `{}`. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value.trim() === "" || value.trim() === "null" ? "{}" : value;
  if (value === undefined || value === null) return "{}";
  return JSON.stringify(value);
}
