import type { ModelConfig } from "@gw/config-store";
import { Errors, GatewayError } from "@gw/errors";
import { adapterFor, type ProviderAdapter, type UpstreamHttpRequest } from "@gw/llm";
import type { ProxyCall } from "./proxy-call.js";

/**
 * How one attempt talks to its upstream.
 *
 * - `native-chat`: a chat-completions client and an OpenAI-compatible upstream (openai, xai,
 *   custom). The client's body is forwarded as sent, only `model` replaced (and usage asked for on
 *   streams), so every standard field (`n`, `logprobs`, `seed`, ...) reaches the provider and the
 *   answer comes back byte for byte: the fastest and most faithful path.
 * - `native-messages`: a messages client and an anthropic upstream, the same idea.
 * - `translated`: everything else goes through the canonical model (hub and spoke): the client's
 *   request is parsed into it, the provider adapter builds its own request, and the answer is
 *   rendered back in the client's format. Mistral is translated rather than forwarded natively
 *   because its chat API differs in details (`tool_choice: "any"`, no `stream_options`).
 */
export type UpstreamMode = "native-chat" | "native-messages" | "translated";

export interface UpstreamPlan {
  mode: UpstreamMode;
  adapter: ProviderAdapter;
  http: UpstreamHttpRequest;
}

const CHAT_NATIVE_KINDS = new Set(["openai", "xai", "custom"]);
const ANTHROPIC_VERSION = "2023-06-01";

export function planUpstream(call: ProxyCall, model: ModelConfig, apiKey: string | null): UpstreamPlan {
  const adapter = adapterForModel(model);
  const baseUrl = baseUrlOf(model, adapter);
  const target = { baseUrl, upstreamModel: model.upstreamModel, apiKey };
  if (call.format.name === "chat" && CHAT_NATIVE_KINDS.has(model.provider)) {
    const body: Record<string, unknown> = { ...call.rawBody, model: model.upstreamModel };
    // Ask for the usage chunk so a stream is billed from the provider's own count.
    if (call.parsed.request.stream)
      body.stream_options = { ...(call.rawBody.stream_options as object | undefined), include_usage: true };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return {
      mode: "native-chat",
      adapter,
      http: { url: `${baseUrl}/chat/completions`, headers, body: JSON.stringify(body) },
    };
  }
  if (call.format.name === "messages" && model.provider === "anthropic") {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": call.anthropicHeaders.version ?? ANTHROPIC_VERSION,
    };
    if (call.anthropicHeaders.beta) headers["anthropic-beta"] = call.anthropicHeaders.beta;
    if (apiKey) headers["x-api-key"] = apiKey;
    return {
      mode: "native-messages",
      adapter,
      http: {
        url: `${baseUrl}/v1/messages`,
        headers,
        body: JSON.stringify({ ...call.rawBody, model: model.upstreamModel }),
      },
    };
  }
  return { mode: "translated", adapter, http: buildTranslated(adapter, call, target) };
}

export function adapterForModel(model: ModelConfig): ProviderAdapter {
  try {
    return adapterFor(model.provider);
  } catch {
    throw new GatewayError({
      code: "provider_unsupported",
      type: "upstream_error",
      status: 502,
      message: `Model ${model.id}: provider kind "${model.provider}" is not one of the supported kinds.`,
    });
  }
}

/** The model's `baseUrl`, else its kind's default, without a trailing slash. */
export function baseUrlOf(model: ModelConfig, adapter: ProviderAdapter): string {
  const base = model.baseUrl ?? adapter.defaultBaseUrl;
  if (!base) {
    throw new GatewayError({
      code: "upstream_misconfigured",
      type: "upstream_error",
      status: 502,
      message: `Model ${model.id}: provider kind "${model.provider}" needs a baseUrl.`,
    });
  }
  return base.replace(/\/+$/, "");
}

/**
 * An adapter refuses a request its provider cannot express (e.g. a Gemini tool result whose call
 * is not in the conversation): that is the client's request, so a 400 naming the reason.
 */
function buildTranslated(
  adapter: ProviderAdapter,
  call: ProxyCall,
  target: { baseUrl: string; upstreamModel: string; apiKey: string | null },
): UpstreamHttpRequest {
  try {
    return adapter.buildRequest(call.parsed.request, target);
  } catch (error) {
    throw Errors.badRequest(
      `This request cannot be sent to a ${adapter.kind} model: ${(error as Error).message}`.slice(0, 500),
    );
  }
}
