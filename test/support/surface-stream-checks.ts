import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import { waitFor } from "@gw/testing";
import { anthropicClient, type KindTarget, type MatrixGateway } from "./proxy-matrix.js";
import { json } from "./surface-http.js";

/**
 * Streaming and the service headers: the trace event, trace ids, session and end user on the
 * record, client disconnects, streams cut mid-way, provider timeouts. In both modes.
 */

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
