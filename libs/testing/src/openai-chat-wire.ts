/**
 * Bodies in the OpenAI chat-completions wire format, as the API sends them.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 * @see https://platform.openai.com/docs/api-reference/chat/streaming
 */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number };
}

export function chatUsage(promptTokens: number, completionTokens: number, cachedTokens = 0): ChatUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

export function chatCompletion(options: {
  id: string;
  model: string;
  content: string;
  usage: ChatUsage;
  created: number;
}) {
  return {
    id: options.id,
    object: "chat.completion",
    created: options.created,
    model: options.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: options.content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: options.usage,
    service_tier: "default",
    system_fingerprint: "fp_fake",
  };
}

export function chatChunk(options: {
  id: string;
  model: string;
  created: number;
  delta: Record<string, unknown>;
  finishReason?: string | null;
  /** `null` on every chunk when the client asked for usage; absent otherwise. */
  withUsageField: boolean;
}) {
  return {
    id: options.id,
    object: "chat.completion.chunk",
    created: options.created,
    model: options.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices: [
      { index: 0, delta: options.delta, logprobs: null, finish_reason: options.finishReason ?? null },
    ],
    ...(options.withUsageField ? { usage: null } : {}),
  };
}

/** The last chunk of a stream with `stream_options.include_usage`: no choices, the usage. */
export function chatUsageChunk(options: { id: string; model: string; created: number; usage: ChatUsage }) {
  return {
    id: options.id,
    object: "chat.completion.chunk",
    created: options.created,
    model: options.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices: [],
    usage: options.usage,
  };
}

/** OpenAI's error body; `type`/`code` as the API uses them for the status. */
export function openAiError(status: number, message?: string) {
  const byStatus: Record<number, { type: string; code: string | null; message: string }> = {
    400: { type: "invalid_request_error", code: null, message: "Invalid request." },
    401: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." },
    404: { type: "invalid_request_error", code: "model_not_found", message: "The model does not exist." },
    429: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests." },
    500: {
      type: "server_error",
      code: null,
      message: "The server had an error while processing your request.",
    },
    503: { type: "server_error", code: null, message: "The engine is currently overloaded." },
  };
  const known = byStatus[status] ?? {
    type: "server_error",
    code: null,
    message: `Upstream error ${status}.`,
  };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}
