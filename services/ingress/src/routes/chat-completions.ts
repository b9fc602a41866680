import { Errors } from "@gw/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { IngressDeps } from "../deps.js";
import { resolveCaller } from "../proxy/caller.js";
import { handleChatCompletion } from "../proxy/chat-pipeline.js";
import { parseChatRequest } from "../proxy/chat-request.js";

/** `POST /v1/chat/completions` and its project-scoped twin. */
export function registerChatCompletions(app: FastifyInstance, deps: IngressDeps): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const slug = (request.params as { slug?: string }).slug;
    const caller = await resolveCaller(deps, request, reply, {
      endpoint: "chat.completions",
      ...(slug ? { projectSlug: slug } : {}),
    });
    // Set now so refusals and failures carry it too.
    if (caller.traceHeader) reply.header("x-service-trace-id", caller.traceId);
    const chat = parseChatRequest(request.body);
    caller.usageBase.endUser = chat.endUser;
    if (deps.outbox.full) throw Errors.accountingUnavailable();
    await handleChatCompletion(deps, caller, chat, reply);
  };
  app.post("/v1/chat/completions", handler);
  app.post("/projects/:slug/v1/chat/completions", handler);
}
