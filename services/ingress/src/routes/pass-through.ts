import { randomUUID } from "node:crypto";
import { recordUsage } from "@gw/accounting";
import type { ModelConfig } from "@gw/config-store";
import { Errors, GatewayError } from "@gw/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { request as undiciRequest } from "undici";
import type { IngressDeps } from "../deps.js";
import { authenticate } from "../proxy/caller.js";
import { forwardedHeaders, returnedHeaders } from "../proxy/pass-through-headers.js";
import { isReservedPath, passThroughUrl } from "../proxy/pass-through-url.js";
import { mapTransportError } from "../proxy/upstream-client.js";
import { adapterForModel, baseUrlOf } from "../proxy/upstream-plan.js";

/**
 * `ANY /<provider-path>` not handled by the proxy endpoints and not reserved: forwarded verbatim
 * (method, body bytes, query, headers) with only the credential swapped for the model's key; the
 * answer streams back with hop-by-hop headers removed. The model is the one whose id or upstream
 * id equals the body's `model`, else the project's first model. Not metered (the gateway cannot
 * read usage from arbitrary APIs) but recorded: one usage record per call, `endpoint`
 * `passthrough`, tokens 0 and cost unknown.
 */
export function registerPassThrough(app: FastifyInstance, deps: IngressDeps): void {
  app.get("/", async (_request, reply) => reply.redirect("/dashboard/", 302));
  // Methods the wildcard does not cover still answer in the envelope.
  app.setNotFoundHandler(async (request) => {
    throw Errors.notFound(
      `No route for ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}.`,
    );
  });
  app.register(async (scope) => {
    // Bytes are forwarded as they came: no JSON parsing beyond peeking at `model`.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.all("/*", (request, reply) => passThrough(deps, request, reply));
  });
}

async function passThrough(deps: IngressDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const path = request.url.split("?")[0] ?? "/";
  if (isReservedPath(path)) throw Errors.notFound(`No route for ${request.method} ${path.slice(0, 200)}.`);
  const { token, project } = await authenticate(deps, request);
  const body = Buffer.isBuffer(request.body) ? request.body : undefined;
  const model = pickModel(project.models, body);
  const adapter = adapterForModel(model);
  const url = passThroughUrl(baseUrlOf(model, adapter), request.url);
  const apiKey = model.apiKeyEncrypted ? deps.decryptApiKey(model.apiKeyEncrypted) : null;
  const startedAt = Date.now();
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const timeoutMs =
    project.defaultTimeoutMs ??
    (await deps.configStore.runtimeSettings()).defaultTimeoutMs ??
    deps.defaultTimeoutMs;
  let status = 502;
  let errorMessage = "";
  try {
    const upstream = await undiciRequest(url, {
      method: request.method as "GET",
      headers: forwardedHeaders(request.headers, model.provider, apiKey),
      ...(body && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
      dispatcher: deps.upstream,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    }).catch((error: unknown) => {
      const mapped = mapTransportError(error, timeoutMs);
      throw mapped instanceof GatewayError || mapped.name === "AbortError"
        ? mapped
        : Errors.upstream(`The provider could not be reached: ${(error as Error).message}`);
    });
    status = upstream.statusCode;
    reply.code(status);
    for (const [name, value] of Object.entries(returnedHeaders(upstream.headers))) reply.header(name, value);
    await reply.send(upstream.body);
  } catch (error) {
    errorMessage = (error as Error).message;
    status = error instanceof GatewayError ? error.status : 502;
    throw error;
  } finally {
    recordUsage(deps.outbox, {
      traceId: randomUUID(),
      startedAt,
      projectId: project.id,
      projectSlug: project.slug,
      tokenId: token.id,
      tags: token.tags,
      sessionId: "",
      endUser: "",
      endpoint: "passthrough",
      attempt: 0,
      modelId: model.id,
      provider: model.provider,
      inputTokens: 0,
      outputTokens: 0,
      cacheTokens: 0,
      costMicros: null,
      outcome: status < 400 ? "success" : "error",
      status,
      trace: [{ stage: "passthrough", name: model.id, path: path.slice(0, 200), method: request.method }],
      errorMessage,
      streamed: false,
    });
  }
}

/** The body's `model` against model id or upstream id, else the project's first model. */
function pickModel(models: ModelConfig[], body: Buffer | undefined): ModelConfig {
  const first = models[0];
  if (!first) {
    throw new GatewayError({
      code: "no_upstream",
      type: "upstream_error",
      status: 502,
      message: "This project has no model configured to forward the request to.",
    });
  }
  const wanted = modelField(body);
  if (!wanted) return first;
  return models.find((m) => m.id === wanted || m.upstreamModel === wanted) ?? first;
}

function modelField(body: Buffer | undefined): string | undefined {
  // Cheap guard: only bodies that can be a JSON object with a `model` key are parsed.
  if (!body || body.length === 0 || body[0] !== 0x7b || !body.includes('"model"')) return undefined;
  try {
    const value = (JSON.parse(body.toString("utf8")) as { model?: unknown }).model;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
