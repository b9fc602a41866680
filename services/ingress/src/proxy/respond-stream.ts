import { Errors, GatewayError } from "@gw/errors";
import { type CanonicalResponse, countTextTokens, type RenderContext, type TraceInfo } from "@gw/llm";
import type { FastifyReply } from "fastify";
import type { CallerContext } from "./caller.js";
import type { ProxyCall } from "./proxy-call.js";
import { nativeChatRelay, nativeMessagesRelay, type StreamRelay, translatedRelay } from "./stream-relays.js";
import { mapTransportError, type UpstreamResponse } from "./upstream-client.js";
import type { UpstreamPlan } from "./upstream-plan.js";
import type { CallUsage } from "./usage.js";

export interface StreamResult {
  usage: CallUsage;
  /** The client went away first; the upstream request was aborted with it. */
  clientGone: boolean;
  /** Why the stream ended early (timeout, upstream cut, unreadable), if it did. */
  failure: Error | undefined;
}

/**
 * Streams an answer in the client's native SSE format: the `trace` event first (unless
 * `x-service-no-trace: 1`), then every upstream chunk as soon as it arrives. After the first byte
 * there is no silent switch: a failure ends the stream with the format's error event. Usage comes
 * from the stream when the provider reports it, else it is counted from what was produced.
 */
export async function respondStream(options: {
  caller: CallerContext;
  call: ProxyCall;
  plan: UpstreamPlan;
  upstream: UpstreamResponse;
  reply: FastifyReply;
  context: RenderContext;
  timeoutMs: number;
  traceInfo: TraceInfo;
  beforeEnd: ((response: CanonicalResponse | undefined) => Promise<void>) | undefined;
}): Promise<StreamResult> {
  const { caller, call, plan, upstream, reply } = options;
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string> = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  };
  if (caller.traceHeader) headers["x-service-trace-id"] = caller.traceId;
  res.writeHead(200, headers);
  const encoder = call.format.createStreamEncoder(options.context);
  if (!caller.noTraceEvent) res.write(encoder.trace(options.traceInfo));
  const relay = relayFor(plan, encoder);
  const decoder = new TextDecoder();
  let failure: Error | undefined;
  try {
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      if (res.destroyed) break;
      const out = relay.push(decoder.decode(chunk, { stream: true }));
      if (out) res.write(out);
    }
    const tail = relay.push(decoder.decode()) + relay.flush();
    if (tail && !res.destroyed) res.write(tail);
  } catch (error) {
    failure = mapTransportError(error, options.timeoutMs);
  }
  const clientGone = res.destroyed || caller.signal.aborted;
  if (!clientGone) {
    if (!failure && !relay.completed)
      failure = Errors.upstream("The provider's stream ended before the answer was complete.");
    if (failure) res.write(encoder.error(wireError(failure)));
    else {
      await options.beforeEnd?.(relay.snapshot());
      res.write(relay.terminal());
    }
  }
  res.end();
  return { usage: streamUsage(relay, call), clientGone, failure: clientGone ? undefined : failure };
}

function relayFor(
  plan: UpstreamPlan,
  encoder: ReturnType<ProxyCall["format"]["createStreamEncoder"]>,
): StreamRelay {
  if (plan.mode === "native-chat") return nativeChatRelay();
  if (plan.mode === "native-messages") return nativeMessagesRelay();
  return translatedRelay(plan.adapter.createStreamDecoder(), encoder);
}

/**
 * The provider's own count when it sent one; for a stream cut short, never less than what was
 * visibly produced (counted with the tokenizer), and the input as reserved when unreported.
 */
function streamUsage(relay: StreamRelay, call: ProxyCall): CallUsage {
  const reported = relay.usage();
  if (reported && relay.completed) return reported;
  const produced = countTextTokens(relay.producedText());
  return {
    inputTokens: reported?.inputTokens || call.estimatedInputTokens,
    outputTokens: Math.max(reported?.outputTokens ?? 0, produced),
    cacheTokens: reported?.cacheTokens ?? 0,
  };
}

function wireError(error: Error) {
  if (error instanceof GatewayError) return { message: error.message, type: error.type, code: error.code };
  return { message: "The provider's stream failed.", type: "upstream_error", code: "stream_interrupted" };
}
