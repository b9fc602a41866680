import assert from "node:assert/strict";
import type { PrismaClient } from "@gw/db";
import { type FakeUpstream, waitFor } from "@gw/testing";
import OpenAI from "openai";

/**
 * The spine assertions, written once and run against both modes: one request through
 * ingress -> routing -> budget -> upstream -> bus -> usage-writer -> database.
 */
export interface SpineTarget {
  url: string;
  token: string;
  prisma: PrismaClient;
  upstream: FakeUpstream;
  upstreamKey: string;
  upstreamModel: string;
}

export function sdk(target: SpineTarget, token = target.token): OpenAI {
  return new OpenAI({ apiKey: token, baseURL: `${target.url}/v1`, maxRetries: 0, timeout: 20_000 });
}

export async function usageRow(prisma: PrismaClient, traceId: string) {
  return waitFor(() => prisma.usageRecord.findFirst({ where: { traceId } }).then((row) => row ?? undefined), {
    timeoutMs: 15_000,
    what: `usage record of trace ${traceId}`,
  });
}

export async function checkHealth(target: SpineTarget): Promise<void> {
  const response = await fetch(`${target.url}/health`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as { status: string; version: string; timestamp: string };
  assert.equal(body.status, "ok");
  assert.match(body.version, /^\d+\.\d+\.\d+/);
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
}

export async function checkChatCompletionRecorded(target: SpineTarget): Promise<void> {
  target.upstream.setBehaviour({ content: "the spine works" });
  const { data, response } = await sdk(target)
    .chat.completions.create(
      {
        model: "anything",
        messages: [{ role: "user", content: "is the spine alive today" }],
        user: "end-user-7",
      },
      { headers: { "x-service-trace": "1", "x-service-conversation-id": "conv-42" } },
    )
    .withResponse();
  assert.equal(data.choices[0]?.message.content, "the spine works");
  const traceId = response.headers.get("x-service-trace-id");
  assert.match(traceId ?? "", /^[0-9a-f-]{36}$/);

  // The upstream saw the model's own key and name, never the client's token.
  const forwarded = target.upstream.requests.at(-1)!;
  assert.equal(forwarded.headers.authorization, `Bearer ${target.upstreamKey}`);
  assert.ok(!JSON.stringify(forwarded.headers).includes(target.token));
  assert.equal((forwarded.body as { model: string }).model, target.upstreamModel);

  const row = await usageRow(target.prisma, traceId!);
  assert.equal(row.outcome, "success");
  assert.equal(row.status, 200);
  assert.equal(row.inputTokens, 5);
  assert.equal(row.outputTokens, 3);
  assert.equal(row.totalTokens, 8);
  // 5 input at $0.15/1k + 3 output at $0.60/1k = 750 + 1800 micro-USD
  assert.equal(row.costMicros, 2550n);
  assert.equal(row.sessionId, "conv-42");
  assert.equal(row.endUserId, "end-user-7");
  assert.equal(row.callType, "completion");
  assert.ok(Array.isArray(row.trace) && (row.trace as unknown[]).length > 0);
}

export async function checkStreamingRecorded(target: SpineTarget): Promise<void> {
  target.upstream.setBehaviour({ content: "streamed words arrive in order" });
  const { data: stream, response } = await sdk(target)
    .chat.completions.create(
      { model: "x", messages: [{ role: "user", content: "stream please" }], stream: true },
      { headers: { "x-service-trace": "1" } },
    )
    .withResponse();
  let text = "";
  // The canonical SDK loop, with no extra header: the trace event must not disturb it.
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
  assert.equal(text, "streamed words arrive in order");
  const row = await usageRow(target.prisma, response.headers.get("x-service-trace-id")!);
  assert.equal(row.streamed, true);
  assert.equal(row.outcome, "success");
  assert.equal(row.inputTokens, 2);
  assert.equal(row.outputTokens, 5);
}

export async function checkRefusals(target: SpineTarget): Promise<void> {
  const unknown = await sdk(target, "sk-rt-not-a-real-token")
    .chat.completions.create({ model: "x", messages: [{ role: "user", content: "hi" }] })
    .catch((error: unknown) => error);
  assert.ok(unknown instanceof OpenAI.AuthenticationError);
  assert.equal((unknown.error as { code?: string }).code, "invalid_api_key");

  const missing = await fetch(`${target.url}/v1/chat/completions`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  assert.equal(missing.status, 401);
  assert.equal(((await missing.json()) as { error: { type: string } }).error.type, "authentication_error");

  const badJson = await fetch(`${target.url}/v1/chat/completions`, {
    method: "POST",
    body: "{not json",
    headers: { "content-type": "application/json", authorization: `Bearer ${target.token}` },
  });
  assert.equal(badJson.status, 400);
  assert.equal(((await badJson.json()) as { error: { code: string } }).error.code, "invalid_request");

  const noMessages = await sdk(target)
    .chat.completions.create({ model: "x", messages: [] })
    .catch((error: unknown) => error);
  assert.ok(noMessages instanceof OpenAI.BadRequestError);
  assert.match(String((noMessages.error as { message?: string }).message), /messages/);

  const root = await fetch(`${target.url}/`, { redirect: "manual" });
  assert.equal(root.status, 302);
  assert.equal(root.headers.get("location"), "/dashboard/");
}

export async function checkUpstreamFailureRecorded(target: SpineTarget): Promise<void> {
  target.upstream.setBehaviour({ status: 500 });
  const failure = await sdk(target)
    .chat.completions.create(
      { model: "x", messages: [{ role: "user", content: "fail" }] },
      { headers: { "x-service-trace": "1" } },
    )
    .catch((error: unknown) => error);
  target.upstream.setBehaviour({});
  assert.ok(failure instanceof OpenAI.APIError);
  assert.equal(failure.status, 502);
  assert.equal((failure.error as { code?: string }).code, "upstream_error");
  const row = await usageRow(target.prisma, failure.headers?.get("x-service-trace-id") ?? "missing");
  assert.equal(row.outcome, "error");
  assert.equal(row.status, 502);
  assert.equal(row.costMicros, 0n);
}
