import { Errors } from "@gw/errors";

/**
 * The parts of a chat-completions body the gateway reads. The body is forwarded as the client sent
 * it (only `model` is replaced), so every standard field reaches the upstream untouched.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export interface ChatRequest {
  body: Record<string, unknown>;
  requestedModel: string;
  stream: boolean;
  maxTokens: number;
  endUser: string;
  /** Rough input size for the reservation; settle corrects it with the upstream's own count. */
  estimatedInputTokens: number;
}

export function parseChatRequest(body: unknown): ChatRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw Errors.badRequest("The request body must be a JSON object.");
  }
  const record = body as Record<string, unknown>;
  if (!Array.isArray(record.messages) || record.messages.length === 0) {
    throw Errors.badRequest("`messages` must be a non-empty array.");
  }
  for (const [index, message] of record.messages.entries()) {
    if (
      typeof message !== "object" ||
      message === null ||
      typeof (message as { role?: unknown }).role !== "string"
    ) {
      throw Errors.badRequest(`messages[${index}] must be an object with a string \`role\`.`);
    }
  }
  if (record.model !== undefined && typeof record.model !== "string")
    throw Errors.badRequest("`model` must be a string.");
  if (record.stream !== undefined && typeof record.stream !== "boolean")
    throw Errors.badRequest("`stream` must be a boolean.");
  const maxTokens = record.max_completion_tokens ?? record.max_tokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    throw Errors.badRequest("`max_tokens` must be a positive integer.");
  }
  if (record.user !== undefined && typeof record.user !== "string")
    throw Errors.badRequest("`user` must be a string.");
  return {
    body: record,
    requestedModel: (record.model as string | undefined) ?? "",
    stream: record.stream === true,
    maxTokens: (maxTokens as number | undefined) ?? 0,
    endUser: (record.user as string | undefined) ?? "",
    // ~4 characters per token: a stand-in until the proxy-surface issue brings a real tokenizer.
    estimatedInputTokens: Math.ceil(JSON.stringify(record.messages).length / 4),
  };
}
