import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import type { Bus } from "@gw/bus";
import { newId } from "@gw/db";
import { countRequestTokens } from "@gw/llm";
import { generateProjectToken, hashToken, tokenDisplayPrefix } from "@gw/security";
import { waitFor } from "@gw/testing";
import OpenAI from "openai";
import { anthropicClient, type KindTarget, type MatrixGateway, openaiClient } from "./proxy-matrix.js";

/**
 * The rest of the proxy surface, beside the format x kind matrix: authentication, project-scoped
 * paths, /v1/models, count_tokens, the service headers, the trace event, client disconnects,
 * pass-through and reserved paths. Written once, run in both modes.
 */

const json = (token: string | undefined, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  ...extra,
});
const CHAT_BODY = JSON.stringify({ model: "m", messages: [{ role: "user", content: "ping" }] });

export async function checkAuthentication(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const missing = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: json(undefined),
    body: CHAT_BODY,
  });
  assert.equal(missing.status, 401);
  const envelope = (await missing.json()) as { error: { type: string; code: string; message: string } };
  assert.equal(envelope.error.code, "invalid_api_key");
  assert.equal(envelope.error.type, "authentication_error");

  // Bearer wins over x-api-key when both are sent, both ways round.
  const bearerWins = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: json(target.token, { "x-api-key": "sk-rt-not-a-real-token" }),
    body: CHAT_BODY,
  });
  assert.equal(bearerWins.status, 200);
  const bearerWrong = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: json("sk-rt-not-a-real-token", { "x-api-key": target.token }),
    body: CHAT_BODY,
  });
  assert.equal(bearerWrong.status, 401);
  const apiKeyOnly = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": target.token },
    body: CHAT_BODY,
  });
  assert.equal(apiKeyOnly.status, 200);

  // The messages SDK reads the error as an AuthenticationError from `{ type: "error", error }`.
  const failure = await anthropicClient(gateway, "sk-rt-wrong")
    .messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
    .catch((error: unknown) => error);
  assert.ok(failure instanceof Anthropic.AuthenticationError);
  assert.equal((failure.error as { type?: string }).type, "error");
}

/** `auth.token_invalid` reaches the bus, naming the token only by a hash prefix. */
export async function checkTokenInvalidEvent(gateway: MatrixGateway, bus: Bus): Promise<void> {
  const seen: { event: string; detailsJson: string }[] = [];
  const subscription = await bus.consume(
    { stream: "EVENTS", durable: `test-auth-${randomUUID().slice(0, 8)}`, filterSubject: "events.auth.>" },
    async (message) => {
      seen.push(JSON.parse(new TextDecoder().decode(message.data)));
    },
  );
  try {
    const bogus = `sk-rt-${randomUUID()}`;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: json(bogus),
      body: CHAT_BODY,
    });
    assert.equal(response.status, 401);
    const event = await waitFor(() => seen.find((e) => e.event === "auth.token_invalid"), {
      timeoutMs: 10_000,
      what: "the auth.token_invalid event",
    });
    assert.ok(!event.detailsJson.includes(bogus), "the token value never appears in the event");
    assert.match(event.detailsJson, /tokenSha256Prefix/);
  } finally {
    await subscription.stop();
  }
}

export async function checkProjectScopedPaths(
  gateway: MatrixGateway,
  own: KindTarget,
  other: KindTarget,
): Promise<void> {
  const ownSlug = `kind-${own.kind}`;
  const otherSlug = `kind-${other.kind}`;
  const scoped = (slug: string, token: string) =>
    new OpenAI({ apiKey: token, baseURL: `${gateway.url}/projects/${slug}/v1`, maxRetries: 0 });
  const ok = await scoped(ownSlug, own.token).chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "scoped" }],
  });
  assert.equal(ok.choices[0]?.message.content, "Echo: scoped");
  const forbidden = await scoped(otherSlug, own.token)
    .chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })
    .catch((error: unknown) => error);
  assert.ok(forbidden instanceof OpenAI.APIError);
  assert.equal(forbidden.status, 403);
  assert.equal((forbidden.error as { code?: string }).code, "project_forbidden");
  const unknown = await scoped("no-such-project", own.token)
    .chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })
    .catch((error: unknown) => error);
  assert.ok(unknown instanceof OpenAI.APIError);
  assert.equal(unknown.status, 403);

  // A token allowed on the other project too: the slug picks the project (and so its model).
  const ownProject = await gateway.prisma.project.findUniqueOrThrow({ where: { slug: ownSlug } });
  const otherProject = await gateway.prisma.project.findUniqueOrThrow({ where: { slug: otherSlug } });
  const value = generateProjectToken();
  await gateway.prisma.projectToken.create({
    data: {
      id: newId("tok"),
      projectId: ownProject.id,
      name: "multi-project",
      tokenHash: hashToken(value),
      prefix: tokenDisplayPrefix(value),
      extraProjectIds: [otherProject.id],
    },
  });
  const before = gateway.upstream.requests.length;
  const viaOther = await scoped(otherSlug, value).chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "through the other project" }],
  });
  assert.equal(viaOther.choices[0]?.message.content, "Echo: through the other project");
  const forwarded = gateway.upstream.requests.slice(before).at(-1);
  assert.ok(
    JSON.stringify(forwarded?.headers).includes(other.upstreamKey),
    "the other project's model served it",
  );
  // The responses and messages endpoints have the scoped twin too.
  const messages = await new Anthropic({
    apiKey: own.token,
    baseURL: `${gateway.url}/projects/${ownSlug}`,
    maxRetries: 0,
  }).messages.create({
    model: "m",
    max_tokens: 50,
    messages: [{ role: "user", content: "scoped messages" }],
  });
  assert.equal(messages.content[0]?.type === "text" ? messages.content[0].text : "", "Echo: scoped messages");
  const responses = await scoped(ownSlug, own.token).responses.create({
    model: "m",
    input: "scoped responses",
  });
  assert.equal(responses.output_text, "Echo: scoped responses");
}

export async function checkModelsList(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const openaiModels = [];
  for await (const model of openaiClient(gateway, target.token).models.list()) openaiModels.push(model);
  assert.deepEqual(
    openaiModels.map((m) => [m.id, m.object, m.owned_by]),
    [[`model-${target.kind}`, "model", target.kind]],
  );
  const anthropicModels = [];
  for await (const model of anthropicClient(gateway, target.token).models.list()) anthropicModels.push(model);
  assert.deepEqual(
    anthropicModels.map((m) => [m.id, m.type]),
    [[`model-${target.kind}`, "model"]],
  );
}

export async function checkCountTokens(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const before = gateway.upstream.requests.length;
  const counted = await anthropicClient(gateway, target.token).messages.countTokens({
    model: "any",
    system: "Count me.",
    messages: [{ role: "user", content: "How many tokens is this sentence?" }],
  });
  const expected = countRequestTokens({
    model: "any",
    stream: false,
    system: "Count me.",
    messages: [{ role: "user", content: [{ type: "text", text: "How many tokens is this sentence?" }] }],
  });
  assert.equal(counted.input_tokens, expected);
  assert.equal(gateway.upstream.requests.length, before, "no inference call was made");
  const bad = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: json(target.token),
    body: JSON.stringify({ model: "m", messages: "nope" }),
  });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { type: string }).type, "error");
}

/** Raw SSE of one streamed call, for checks the SDKs hide (the trace event). */
async function rawStream(
  gateway: MatrixGateway,
  token: string,
  path: string,
  body: object,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: json(token, headers),
    body: JSON.stringify({ ...body, stream: true }),
  });
  assert.equal(response.status, 200);
  return { response, text: await response.text() };
}

/** SSE frames as `{ event, data }` (data parsed when it is JSON). */
function sseFrames(text: string): { event: string | undefined; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines
        .find((l) => l.startsWith("event:"))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .join("\n");
      if (!data || data === "[DONE]") return undefined;
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    })
    .filter((frame) => frame !== undefined);
}

export async function checkTraceEventAndHeaders(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const chat = { model: "m", messages: [{ role: "user", content: "trace me" }] };
  const calls: [string, object][] = [
    ["/v1/chat/completions", chat],
    ["/v1/responses", { model: "m", input: "trace me" }],
    ["/v1/messages", { ...chat, max_tokens: 50 }],
  ];
  for (const [path, body] of calls) {
    const { response, text } = await rawStream(gateway, target.token, path, body, { "x-service-trace": "1" });
    assert.match(response.headers.get("x-service-trace-id") ?? "", /^[0-9a-f-]{36}$/, path);
    const frames = sseFrames(text);
    const traceIndex = frames.findIndex((f) =>
      path === "/v1/chat/completions" ? f.data.type === "trace" : f.event === "trace",
    );
    assert.ok(traceIndex >= 0, `${path}: a trace event`);
    const trace = frames[traceIndex]!.data;
    const firstContent = frames.findIndex(
      (f) => JSON.stringify(f.data).includes("Echo: ") || JSON.stringify(f.data).includes('"Echo'),
    );
    assert.ok(traceIndex < firstContent, `${path}: the trace event precedes the content`);
    if (path === "/v1/chat/completions") {
      assert.equal(traceIndex, 0, "chat: the trace event is the first chunk");
      assert.deepEqual(trace.choices, [], "chat: the trace event is a chunk with no choices");
    } else if (path === "/v1/messages") assert.equal(traceIndex, 0, "messages: the trace event comes first");
    // responses: the SDK's stream helper needs response.created first, so trace follows it.
    else assert.ok(frames.slice(0, traceIndex).every((f) => String(f.event).startsWith("response.")));
    assert.equal(trace.model, `model-${target.kind}`);
    assert.equal(trace.provider, target.kind);
    assert.ok(Array.isArray(trace.policies));
    assert.equal(typeof trace.costEstimate, "number");
    const quiet = await rawStream(gateway, target.token, path, body, { "x-service-no-trace": "1" });
    assert.ok(
      !quiet.text.includes('"type":"trace"') && !quiet.text.includes("event: trace"),
      `${path}: x-service-no-trace suppresses it`,
    );
    assert.equal(quiet.response.headers.get("x-service-trace-id"), null, `${path}: no trace id unless asked`);
  }
  // Content chunks on chat carry `type: "content"` and `delta` beside the standard fields.
  const { text } = await rawStream(gateway, target.token, "/v1/chat/completions", chat);
  const contentChunks = text
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map(
      (line) =>
        JSON.parse(line.slice(6)) as {
          type?: string;
          delta?: string;
          choices?: { delta?: { content?: string } }[];
        },
    )
    .filter((chunk) => chunk.type === "content");
  assert.ok(contentChunks.length > 0);
  assert.equal(contentChunks.map((c) => c.delta).join(""), "Echo: trace me");
  assert.ok(contentChunks.every((c) => c.delta === c.choices?.[0]?.delta?.content));
  assert.ok(text.trimEnd().endsWith("data: [DONE]"));
}

export async function checkSessionAndEndUserRecorded(
  gateway: MatrixGateway,
  target: KindTarget,
): Promise<void> {
  const conversation = `conv-${randomUUID()}`;
  const { response } = await anthropicClient(gateway, target.token)
    .messages.create(
      {
        model: "m",
        max_tokens: 50,
        messages: [{ role: "user", content: "remember me" }],
        metadata: { user_id: "end-user-9" },
      },
      { headers: { "x-service-trace": "1", "x-service-conversation-id": conversation } },
    )
    .withResponse();
  const traceId = response.headers.get("x-service-trace-id") ?? "";
  const row = await waitFor(
    () => gateway.prisma.usageRecord.findFirst({ where: { traceId } }).then((r) => r ?? undefined),
    { timeoutMs: 15_000, what: "the usage row" },
  );
  assert.equal(row.sessionId, conversation);
  assert.equal(row.endUserId, "end-user-9");
  assert.equal(row.endpoint, "messages");
  assert.equal(row.provider, target.kind);
  assert.equal(row.outcome, "success");
  assert.ok(row.inputTokens > 0 && row.outputTokens > 0);
}

/** The client goes away mid-stream: the upstream request is aborted and what was produced is billed. */
export async function checkClientDisconnect(
  gateway: MatrixGateway,
  target: KindTarget,
  endpoint: "/v1/chat/completions" | "/v1/messages" = "/v1/chat/completions",
): Promise<void> {
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
  gateway.upstream.setBehaviour({ content: words, chunkDelayMs: 20 });
  try {
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}${endpoint}`, {
      method: "POST",
      headers: json(target.token, { "x-service-trace": "1" }),
      body: JSON.stringify({
        model: "m",
        stream: true,
        max_tokens: 1000,
        messages: [{ role: "user", content: "long please" }],
      }),
      signal: controller.signal,
    });
    const traceId = response.headers.get("x-service-trace-id") ?? "";
    const reader = response.body!.getReader();
    let received = "";
    while (!received.includes("word3")) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const forwarded = gateway.upstream.requests.at(-1)!;
    await waitFor(() => forwarded.aborted || undefined, {
      timeoutMs: 5_000,
      what: "the upstream request aborted",
    });
    const row = await waitFor(
      () => gateway.prisma.usageRecord.findFirst({ where: { traceId } }).then((r) => r ?? undefined),
      { timeoutMs: 15_000, what: "the usage row of the cut stream" },
    );
    assert.equal(row.status, 499);
    assert.ok(
      row.outputTokens > 0 && row.outputTokens < 200,
      `billed for what was produced (${row.outputTokens})`,
    );
  } finally {
    gateway.upstream.setBehaviour({});
  }
}

export async function checkPassThrough(
  gateway: MatrixGateway,
  openai: KindTarget,
  anthropic: KindTarget,
): Promise<void> {
  const before = gateway.upstream.requests.length;
  const response = await fetch(`${gateway.url}/v1/embeddings?dimensions=8`, {
    method: "POST",
    headers: json(openai.token, { "x-custom-header": "kept" }),
    body: JSON.stringify({ model: openai.upstreamModel, input: "embed me" }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-fake-upstream"), "echo");
  const echoed = (await response.json()) as {
    echo: { method: string; path: string; body: { input: string } };
  };
  assert.equal(echoed.echo.method, "POST");
  assert.equal(echoed.echo.path, "/v1/embeddings?dimensions=8");
  assert.equal(echoed.echo.body.input, "embed me");
  const forwarded = gateway.upstream.requests.at(-1)!;
  assert.equal(gateway.upstream.requests.length, before + 1);
  assert.equal(forwarded.headers.authorization, `Bearer ${openai.upstreamKey}`);
  assert.equal(forwarded.headers["x-custom-header"], "kept");
  assert.ok(!JSON.stringify(forwarded.headers).includes(openai.token));

  // GET with no body: the project's first model; an anthropic model gets its key as x-api-key.
  const listed = await fetch(`${gateway.url}/v1/messages/batches?limit=2`, {
    headers: { "x-api-key": anthropic.token },
  });
  assert.equal(listed.status, 200);
  const anthropicForwarded = gateway.upstream.requests.at(-1)!;
  assert.equal(anthropicForwarded.path, "/v1/messages/batches?limit=2");
  assert.equal(anthropicForwarded.headers["x-api-key"], anthropic.upstreamKey);
  assert.equal(anthropicForwarded.headers.authorization, undefined);

  // No token: 401 like every proxy path.
  assert.equal((await fetch(`${gateway.url}/v1/embeddings`, { method: "POST", body: "{}" })).status, 401);
}

export async function checkPassThroughErrors(gateway: MatrixGateway): Promise<void> {
  // A project without models: 502 no_upstream.
  const project = await gateway.prisma.project.create({
    data: { id: newId("proj"), name: "empty", slug: `empty-${randomUUID().slice(0, 8)}` },
  });
  const emptyToken = generateProjectToken();
  await gateway.prisma.projectToken.create({
    data: {
      id: newId("tok"),
      projectId: project.id,
      name: "t",
      tokenHash: hashToken(emptyToken),
      prefix: tokenDisplayPrefix(emptyToken),
    },
  });
  const noUpstream = await fetch(`${gateway.url}/v1/embeddings`, {
    method: "POST",
    headers: json(emptyToken),
    body: "{}",
  });
  assert.equal(noUpstream.status, 502);
  assert.equal(((await noUpstream.json()) as { error: { code: string } }).error.code, "no_upstream");

  // A model whose host refuses connections: 502 upstream_error.
  const { seedProject } = await import("@gw/service-standalone");
  const unreachable = await seedProject(gateway.prisma, gateway.secretKey, {
    projectSlug: `unreachable-${randomUUID().slice(0, 8)}`,
    modelId: `model-unreachable-${randomUUID().slice(0, 8)}`,
    provider: "custom",
    baseUrl: "http://127.0.0.1:9/v1",
  });
  const refused = await fetch(`${gateway.url}/v1/embeddings`, {
    method: "POST",
    headers: json(unreachable.token),
    body: "{}",
  });
  assert.equal(refused.status, 502);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "upstream_error");
}

export async function checkReservedPaths(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const before = gateway.upstream.requests.length;
  for (const path of ["/api/usage", "/api", "/dashboard", "/dashboard/settings"]) {
    const response = await fetch(`${gateway.url}${path}`, { headers: json(target.token) });
    assert.equal(response.status, 404, path);
    const body = (await response.json()) as { error: { code: string } };
    assert.equal(body.error.code, "not_found", path);
  }
  const root = await fetch(`${gateway.url}/`, { redirect: "manual", headers: json(target.token) });
  assert.equal(root.status, 302);
  assert.equal(root.headers.get("location"), "/dashboard/");
  assert.equal((await fetch(`${gateway.url}/health`, { headers: json(target.token) })).status, 200);
  assert.equal(gateway.upstream.requests.length, before, "nothing reserved was proxied");
}

/** Project timeout on the messages endpoint: 504 in the messages error shape, outcome timeout. */
export async function checkMessagesTimeout(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  await gateway.prisma.project.update({
    where: { slug: `kind-${target.kind}` },
    data: { defaultTimeoutMs: 150 },
  });
  gateway.upstream.setBehaviour({ latencyMs: 1500 });
  try {
    // The config cache keeps a project for a few seconds: retry until the new timeout applies.
    const failure = await waitFor(
      async () => {
        const error = await anthropicClient(gateway, target.token)
          .messages.create({ model: "m", max_tokens: 20, messages: [{ role: "user", content: "slow" }] })
          .catch((e: unknown) => e);
        return error instanceof Anthropic.APIError && error.status === 504 ? error : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: "a 504" },
    );
    assert.equal((failure.error as { type?: string }).type, "error");
    assert.equal((failure.error as { error?: { type?: string } }).error?.type, "timeout_error");
  } finally {
    gateway.upstream.setBehaviour({});
    await gateway.prisma.project.update({
      where: { slug: `kind-${target.kind}` },
      data: { defaultTimeoutMs: null },
    });
  }
}

/**
 * The upstream connection drops mid-stream: no silent switch after the first byte; the stream ends
 * with the format's error event (which the SDK raises), and the usage of what was produced is
 * recorded with the failure.
 */
export async function checkStreamCutMidway(gateway: MatrixGateway, target: KindTarget): Promise<void> {
  const words = Array.from({ length: 50 }, (_, i) => `part${i}`).join(" ");
  gateway.upstream.setBehaviour({ content: words, dropAfterChunks: 5, toolCall: false });
  try {
    let text = "";
    const { data: stream, response } = await anthropicClient(gateway, target.token)
      .messages.create(
        { model: "m", max_tokens: 500, stream: true, messages: [{ role: "user", content: "go" }] },
        { headers: { "x-service-trace": "1" } },
      )
      .withResponse();
    const failure = await (async () => {
      for await (const event of stream)
        if (event.type === "content_block_delta" && event.delta.type === "text_delta")
          text += event.delta.text;
    })().catch((error: unknown) => error);
    assert.ok(
      failure instanceof Anthropic.APIError,
      `${target.kind}: the SDK raises the stream's error event`,
    );
    assert.ok(text.startsWith("part0"), "what was produced before the cut was delivered");
    const traceId = response.headers.get("x-service-trace-id") ?? "";
    const row = await waitFor(
      () => gateway.prisma.usageRecord.findFirst({ where: { traceId } }).then((r) => r ?? undefined),
      { timeoutMs: 15_000, what: "the usage row of the cut stream" },
    );
    assert.equal(row.outcome, "error");
    assert.equal(row.status, 502);
    assert.ok(row.outputTokens > 0, "what was produced is billed");
  } finally {
    gateway.upstream.setBehaviour({});
  }
}
