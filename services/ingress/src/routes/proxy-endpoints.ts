import { Errors } from "@gw/errors";
import { type CanonicalRequest, type ClientFormatName, clientFormat, countRequestTokens } from "@gw/llm";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { IngressDeps } from "../deps.js";
import { resolveCaller } from "../proxy/caller.js";
import { handleProxyCall, type ProxyCall } from "../proxy/proxy-call.js";

/** The three LLM endpoints, each also under `/projects/{slug}`, and the name usage records carry. */
const ENDPOINTS: { path: string; format: ClientFormatName; endpoint: string }[] = [
  { path: "/v1/chat/completions", format: "chat", endpoint: "chat.completions" },
  { path: "/v1/responses", format: "responses", endpoint: "responses" },
  { path: "/v1/messages", format: "messages", endpoint: "messages" },
];

export function registerProxyEndpoints(app: FastifyInstance, deps: IngressDeps): void {
  for (const { path, format, endpoint } of ENDPOINTS) {
    const handler = proxyHandler(deps, format, endpoint);
    app.post(path, handler);
    app.post(`/projects/:slug${path}`, handler);
  }
}

function proxyHandler(deps: IngressDeps, formatName: ClientFormatName, endpoint: string) {
  const format = clientFormat(formatName);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const slug = (request.params as { slug?: string }).slug;
    const caller = await resolveCaller(deps, request, reply, {
      endpoint,
      ...(slug ? { projectSlug: slug } : {}),
    });
    // Set now so refusals and failures carry it too.
    if (caller.traceHeader) reply.header("x-service-trace-id", caller.traceId);
    const parsed = format.parseRequest(request.body);
    if (parsed.previousResponseId) {
      const history = await deps.responses.conversation(parsed.previousResponseId, caller.project.id);
      parsed.request.messages = [...history, ...parsed.request.messages];
    }
    caller.usageBase.endUser = parsed.request.user?.slice(0, 200) ?? "";
    if (deps.outbox.full) throw Errors.accountingUnavailable();
    const call: ProxyCall = {
      format,
      parsed,
      rawBody: request.body as Record<string, unknown>,
      anthropicHeaders: anthropicHeaders(request),
      estimatedInputTokens: countRequestTokens(parsed.request),
      requiredCapabilities: requiredCapabilities(parsed.request),
    };
    await handleProxyCall(deps, caller, call, reply);
  };
}

/** What routing must filter on: tools -> functionCalling, image parts -> vision, JSON output -> json. */
export function requiredCapabilities(request: CanonicalRequest): string[] {
  const needed: string[] = [];
  if (request.tools && request.tools.length > 0) needed.push("functionCalling");
  if (request.messages.some((m) => m.content.some((part) => part.type === "image"))) needed.push("vision");
  if (request.responseFormat && request.responseFormat.type !== "text") needed.push("json");
  return needed;
}

function anthropicHeaders(request: FastifyRequest): { version?: string; beta?: string } {
  const version = request.headers["anthropic-version"];
  const beta = request.headers["anthropic-beta"];
  return {
    ...(typeof version === "string" ? { version } : {}),
    ...(typeof beta === "string" ? { beta } : {}),
  };
}
