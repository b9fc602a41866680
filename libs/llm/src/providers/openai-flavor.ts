import type { ProviderKind } from "./types.js";

/**
 * The four kinds that speak OpenAI Chat Completions differ only in these details; one request
 * builder and one response reader serve them all.
 */
export interface OpenAiFlavor {
  kind: Extract<ProviderKind, "openai" | "xai" | "mistral" | "custom">;
  /** How errors name the upstream when its body has no message. */
  label: string;
  defaultBaseUrl: string | null;
  /**
   * OpenAI deprecated `max_tokens` (refused by its reasoning models) for `max_completion_tokens`;
   * xAI, Mistral and most self-hosted servers know `max_tokens`.
   */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /**
   * Send `stream_options: {include_usage: true}` so the last chunk carries usage. Mistral sends
   * usage in its last chunk unasked and refuses fields it does not know.
   */
  streamUsageOption: boolean;
  /** The `tool_choice` that forces some tool: OpenAI `required`, Mistral `any`. */
  requiredToolChoice: "required" | "any";
  /** Whether the API has the end-user `user` field (Mistral has none and refuses unknown fields). */
  sendsUser: boolean;
  /**
   * Mistral only: tool-call ids reshaped to its 9-character form, `image_url` as a plain string (its
   * documented form), and the tool `name` on tool messages.
   */
  mistralMessages: boolean;
}

export const OPENAI: OpenAiFlavor = {
  kind: "openai",
  label: "OpenAI",
  defaultBaseUrl: "https://api.openai.com/v1",
  maxTokensField: "max_completion_tokens",
  streamUsageOption: true,
  requiredToolChoice: "required",
  sendsUser: true,
  mistralMessages: false,
};

export const XAI: OpenAiFlavor = {
  kind: "xai",
  label: "xAI",
  defaultBaseUrl: "https://api.x.ai/v1",
  maxTokensField: "max_tokens",
  streamUsageOption: true,
  requiredToolChoice: "required",
  sendsUser: true,
  mistralMessages: false,
};

export const MISTRAL: OpenAiFlavor = {
  kind: "mistral",
  label: "Mistral",
  defaultBaseUrl: "https://api.mistral.ai/v1",
  maxTokensField: "max_tokens",
  streamUsageOption: false,
  requiredToolChoice: "any",
  sendsUser: false,
  mistralMessages: true,
};

export const CUSTOM: OpenAiFlavor = {
  kind: "custom",
  label: "Custom upstream",
  defaultBaseUrl: null,
  maxTokensField: "max_tokens",
  streamUsageOption: true,
  requiredToolChoice: "required",
  sendsUser: true,
  mistralMessages: false,
};
