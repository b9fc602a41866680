import { clientFormat, countRequestTokens } from "@gw/llm";
import type { FastifyInstance } from "fastify";
import type { IngressDeps } from "../deps.js";
import { authenticate } from "../proxy/caller.js";

/**
 * `GET /v1/models` and `POST /v1/messages/count_tokens`: answered by ingress alone, no routing,
 * no upstream call, no usage record.
 */
export function registerModelsAndTokenCount(app: FastifyInstance, deps: IngressDeps): void {
  // The project's enabled models in the common vendor list format. Each entry carries the
  // chat-completions fields (`object`, `created`, `owned_by`) and the messages-API ones (`type`,
  // `display_name`, `created_at`), and the list both `object` and the paging fields, so either
  // official SDK's `models.list()` reads it.
  app.get("/v1/models", async (request) => {
    const { project } = await authenticate(deps, request);
    const data = project.models
      .filter((model) => model.enabled)
      .map((model) => ({
        id: model.id,
        object: "model",
        created: model.createdAt,
        owned_by: model.provider,
        type: "model",
        display_name: model.id,
        created_at: new Date(model.createdAt * 1000).toISOString(),
      }));
    return {
      object: "list",
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    };
  });

  const messages = clientFormat("messages");
  app.post("/v1/messages/count_tokens", async (request) => {
    await authenticate(deps, request);
    const body = request.body as Record<string, unknown> | null;
    // count_tokens takes a messages request without `max_tokens`.
    const withLimit =
      typeof body === "object" && body !== null && !Array.isArray(body) && body.max_tokens === undefined
        ? { ...body, max_tokens: 1 }
        : body;
    const { request: canonical } = messages.parseRequest(withLimit);
    return { input_tokens: countRequestTokens(canonical) };
  });
}
