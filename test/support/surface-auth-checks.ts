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
import { CHAT_BODY, json } from "./surface-http.js";

/** Authentication, project-scoped paths, `/v1/models` and `count_tokens`, in both modes. */

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
