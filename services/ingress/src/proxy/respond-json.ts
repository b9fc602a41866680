import { Errors } from "@gw/errors";
import { type CanonicalResponse, countTextTokens, type RenderContext } from "@gw/llm";
import type { FastifyReply } from "fastify";
import type { ProxyCall } from "./proxy-call.js";
import { mapTransportError, type UpstreamResponse } from "./upstream-client.js";
import type { UpstreamPlan } from "./upstream-plan.js";
import { type CallUsage, usageFromAnthropic, usageFromCanonical, usageFromOpenAi } from "./usage.js";

/**
 * A non-streaming answer: on the native paths the provider's body goes back byte for byte (read
 * only for usage); on the translated path it is parsed by the provider adapter and rendered in
 * the client's format. Usage missing from a body is counted from its text, never taken as zero.
 */
export async function respondJson(options: {
  call: ProxyCall;
  plan: UpstreamPlan;
  upstream: UpstreamResponse;
  reply: FastifyReply;
  context: RenderContext;
  timeoutMs: number;
  beforeSend: ((response: CanonicalResponse) => Promise<void>) | undefined;
}): Promise<CallUsage> {
  const { call, plan, upstream, reply } = options;
  const text = await upstream.body.text().catch((error: unknown) => {
    throw mapTransportError(error, options.timeoutMs);
  });
  const body = parseJson(text);
  if (plan.mode === "translated") {
    let response: CanonicalResponse;
    try {
      response = plan.adapter.parseResponse(body);
    } catch (error) {
      throw Errors.upstream(`The provider's answer could not be read: ${(error as Error).message}`);
    }
    await options.beforeSend?.(response);
    await reply
      .code(200)
      .header("content-type", "application/json")
      .send(JSON.stringify(call.format.renderResponse(response, options.context)));
    return usageFromCanonical(response.usage);
  }
  const reported =
    plan.mode === "native-chat"
      ? usageFromOpenAi((body as { usage?: unknown }).usage)
      : usageFromAnthropic((body as { usage?: unknown }).usage);
  await reply.code(200).header("content-type", "application/json").send(text);
  return (
    reported ?? {
      inputTokens: call.estimatedInputTokens,
      outputTokens: countTextTokens(text),
      cacheTokens: 0,
    }
  );
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null) return value;
  } catch {}
  throw Errors.upstream("The provider answered with a body that is not a JSON object.");
}
