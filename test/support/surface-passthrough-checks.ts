import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { newId } from "@gw/db";
import { generateProjectToken, hashToken, tokenDisplayPrefix } from "@gw/security";
import type { KindTarget, MatrixGateway } from "./proxy-matrix.js";
import { json } from "./surface-http.js";

/** The pass-through proxy and the reserved paths, in both modes. */

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
  // A management path that does not exist: 404 (an existing one wants a JWT: 401).
  for (const path of ["/api/no-such-endpoint", "/api", "/dashboard", "/dashboard/settings"]) {
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
