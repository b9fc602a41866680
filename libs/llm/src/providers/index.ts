import { anthropicAdapter } from "./anthropic.js";
import { cohereAdapter } from "./cohere.js";
import { geminiAdapter } from "./gemini.js";
import { ollamaAdapter } from "./ollama.js";
import { customAdapter, mistralAdapter, openaiAdapter, xaiAdapter } from "./openai-compatible.js";
import { PROVIDER_KINDS, type ProviderAdapter, type ProviderKind } from "./types.js";

/** The provider adapters of the hub, one per kind of SPEC.md / DESIGN.md section 4. */
const ADAPTERS: Record<ProviderKind, ProviderAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  mistral: mistralAdapter,
  cohere: cohereAdapter,
  xai: xaiAdapter,
  ollama: ollamaAdapter,
  custom: customAdapter,
};

export function isProviderKind(kind: string): kind is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(kind);
}

/** The adapter of a provider kind; throws naming the kind and the known ones for anything else. */
export function adapterFor(kind: string): ProviderAdapter {
  if (!isProviderKind(kind))
    throw new Error(`Unknown provider kind "${kind}"; expected one of: ${PROVIDER_KINDS.join(", ")}.`);
  return ADAPTERS[kind];
}

export { ProviderError, type ProviderErrorReason } from "./errors.js";
export { NdjsonDecoder } from "./ndjson-decoder.js";
export { SseDecoder, type SseEvent } from "./sse-decoder.js";
export {
  PROVIDER_KINDS,
  type ProviderAdapter,
  type ProviderKind,
  type StreamDecoder,
  type UpstreamHttpRequest,
  type UpstreamTarget,
} from "./types.js";
