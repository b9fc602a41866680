import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newId } from "@gw/db";
import { decryptSecret, generateProjectToken, hashToken, tokenDisplayPrefix } from "@gw/security";
import { type FakeUpstream, fakeBaseUrl, startFakeUpstream, waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";
import { type RecordedEvent, recordEvents } from "../support/event-recorder.js";

type ModelBody = Record<string, unknown> & { fieldOverrides?: Record<string, boolean> };
type ErrorBody = { error: { message: string; type: string; code: string } };

const CANARY = "sk-canary-upstream-key-5e8d21";
const ROTATED = "sk-canary-rotated-key-9b0c47";

const FULL = {
  id: "gpt-test",
  provider: "openai",
  apiKey: CANARY,
  upstreamModel: "gpt-4o-mini",
  inputPrice: 0.00015,
  outputPrice: 0.0006,
  cachePrice: 0.000075,
  cacheWritePrice: null,
  pricingTiers: [
    { fromTokens: 1_000_000, inputPrice: 0.0001, outputPrice: 0.0004 },
    { fromTokens: 0, inputPrice: 0.00015, outputPrice: 0.0006, cachePrice: 0.00007 },
  ],
  contextWindow: 128_000,
  maxOutputTokens: 16_384,
  capabilities: ["chat", "vision", "chat"],
  limits: [{ metric: "cost", limit: 50, windowType: "period", windowSize: "monthly", warnAt: 90 }],
};

// `/api/models` over real HTTP in standalone mode: CRUD, validation, permissions, field locks, the
// upstream key kept secret everywhere, events, and a model created here serving proxy traffic.
describe("management API: models (standalone)", () => {
  let gw: AdminGateway;
  let admin: string;
  let member: string;
  let viewer: string;
  let events: RecordedEvent[];
  let stopEvents: () => Promise<void>;
  let upstream: FakeUpstream;
  const seen: string[] = [];

  before(async () => {
    gw = await startAdminGateway("models");
    admin = gw.adminToken;
    member = (await gw.userWithRole("member")).token;
    viewer = (await gw.userWithRole("viewer")).token;
    const recorder = await recordEvents(gw.handle.bus, "events.config.>");
    events = recorder.events;
    stopEvents = recorder.stop;
    upstream = await startFakeUpstream();
  });

  after(async () => {
    await stopEvents?.();
    await upstream?.close();
    await gw?.stop();
  });

  /** Every answer passes through here: the key must never come back. */
  const keep = <T extends { body: unknown }>(answer: T): T => {
    seen.push(JSON.stringify(answer.body));
    return answer;
  };
  const get = async (path: string, token = admin) => keep(await gw.api.get<ModelBody>(path, token));
  const post = async (path: string, body: unknown, token = admin) =>
    keep(await gw.api.post<ModelBody>(path, body, token));
  const put = async (path: string, body: unknown, token = admin) =>
    keep(await gw.api.put<ModelBody>(path, body, token));
  const del = async (path: string, token = admin) => keep(await gw.api.del(path, token));
  const expectError = (answer: { status: number; body: unknown }, status: number, pattern?: RegExp) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    const { error } = answer.body as ErrorBody;
    assert.ok(error?.code && error.type && error.message, "error envelope");
    if (pattern) assert.match(error.message, pattern);
  };

  it("creates a model and shows it masked, with prices as numbers, in get and list", async () => {
    const created = await post("/models", FULL);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const model = created.body;
    assert.equal(model.id, "gpt-test");
    assert.equal(model.apiKey, null);
    assert.equal(model.hasApiKey, true);
    assert.equal(model.inputPrice, 0.00015);
    assert.equal(model.cacheWritePrice, null);
    assert.equal(model.enabled, true);
    assert.deepEqual(model.capabilities, ["chat", "vision"]);
    assert.deepEqual(
      (model.pricingTiers as { fromTokens: number }[]).map((t) => t.fromTokens),
      [0, 1_000_000],
      "tiers stored in order",
    );
    // Stored in the budget shape of docs/BUDGETS.md: `onExhausted` is always `block`.
    assert.deepEqual(
      model.limits,
      FULL.limits.map((limit) => ({ ...limit, onExhausted: "block" })),
    );
    assert.equal("apiKeyEncrypted" in model, false);
    assert.equal("fieldOverrides" in model, false, "no lock, no object");
    assert.equal("catalogDefaults" in model, false, "unknown to the catalog");
    assert.ok(!Number.isNaN(Date.parse(String(model.createdAt))));

    const row = await gw.handle.db.prisma.model.findUniqueOrThrow({ where: { id: "gpt-test" } });
    assert.notEqual(row.apiKeyEncrypted, CANARY);
    assert.equal(decryptSecret(row.apiKeyEncrypted!, gw.handle.secretKey), CANARY, "stored encrypted");

    assert.deepEqual((await get("/models/gpt-test")).body, model);
    const list = await get("/models");
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.models, [model]);
  });

  it("accepts a minimal body, a custom model with baseUrl, and ids with a slash", async () => {
    const minimal = await post("/models", { id: "claude-min", provider: "anthropic" });
    assert.equal(minimal.status, 201);
    assert.equal(minimal.body.hasApiKey, false);
    assert.equal(minimal.body.inputPrice, null, "no price is null, never a silent 0");
    assert.deepEqual(minimal.body.limits, []);
    const custom = await post("/models", {
      id: "org/local-llm",
      provider: "custom",
      baseUrl: "http://127.0.0.1:9999/v1",
      enabled: false,
      fieldOverrides: { outputPrice: true, contextWindow: false },
    });
    assert.equal(custom.status, 201, JSON.stringify(custom.body));
    assert.deepEqual(custom.body.fieldOverrides, { outputPrice: true });
    assert.equal((await get("/models/org%2Flocal-llm")).body.enabled, false);
  });

  it("shows catalogDefaults for a model the catalog knows", async () => {
    const known = await post("/models", { id: "gpt-4o-mini", provider: "openai", inputPrice: 0.5 });
    assert.equal(known.status, 201);
    const defaults = known.body.catalogDefaults as Record<string, unknown>;
    assert.ok(defaults, "the built-in catalog lists gpt-4o-mini");
    assert.equal(typeof defaults.inputPrice, "number");
    assert.notEqual(defaults.inputPrice, 0.5, "the catalog's value, not the model's");
    assert.equal(typeof defaults.contextWindow, "number");
    assert.ok(Array.isArray(defaults.capabilities));
    assert.deepEqual((await get("/models/gpt-4o-mini")).body.catalogDefaults, defaults);
    assert.equal((await del("/models/gpt-4o-mini")).status, 204);
  });

  it("refuses invalid bodies with 400 naming the field", async () => {
    const cases: [unknown, RegExp][] = [
      [{ id: "x1", provider: "openia" }, /provider/],
      [{ id: "x2", provider: "custom" }, /baseUrl/],
      [{ id: "x3", provider: "custom", baseUrl: "ftp://host/x" }, /baseUrl/],
      [{ id: "x4", provider: "openai", inputPrice: -0.1 }, /inputPrice/],
      [{ id: "x5", provider: "openai", contextWindow: 0 }, /contextWindow/],
      [
        {
          id: "x6",
          provider: "openai",
          limits: [{ metric: "cost", limit: 1, windowType: "rolling", windowSize: "daily" }],
        },
        /limits\.0\.windowSize/,
      ],
      [
        {
          id: "x7",
          provider: "openai",
          limits: [{ metric: "dollars", limit: 1, windowType: "period", windowSize: "daily" }],
        },
        /limits\.0\.metric/,
      ],
      [{ id: "x8", provider: "openai", fieldOverrides: { provider: true } }, /fieldOverrides\.provider/],
      [{ id: "has space", provider: "openai" }, /id/],
      [{ id: "x".repeat(201), provider: "openai" }, /id/],
      [{ provider: "openai" }, /id/],
      [{ id: "x9", provider: "openai", apiKee: "typo" }, /apiKee/],
      [
        { id: "x10", provider: "openai", pricingTiers: [{ fromTokens: 0, inputPrice: 1 }] },
        /pricingTiers\.0\.outputPrice/,
      ],
    ];
    for (const [body, field] of cases) expectError(await post("/models", body), 400, field);
    expectError(await put("/models/gpt-test", { outputPrice: -1 }), 400, /outputPrice/);
    expectError(await put("/models/gpt-test", { provider: "custom" }), 400, /baseUrl/);
    expectError(await put("/models/org%2Flocal-llm", { baseUrl: null }), 400, /baseUrl/);
    expectError(
      await put("/models/gpt-test", { fieldOverrides: { enabled: false } }),
      400,
      /fieldOverrides\.enabled/,
    );
    expectError(await post("/models/gpt-test/apikey", { apiKey: "  " }), 400, /apiKey/);
    assert.equal((await get("/models/x2")).status, 404, "nothing was stored");
  });

  it("answers 409 on a duplicate id, also when two creates race", async () => {
    expectError(await post("/models", { id: "gpt-test", provider: "openai" }), 409, /gpt-test/);
    const racing = await Promise.all([1, 2, 3].map(() => post("/models", { id: "race", provider: "xai" })));
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409]);
  });

  it("answers 404 for an unknown model on every route", async () => {
    expectError(await get("/models/nope"), 404);
    expectError(await put("/models/nope", { enabled: false }), 404);
    expectError(await post("/models/nope/apikey", { apiKey: "sk-x" }), 404);
    expectError(await del("/models/nope"), 404);
  });

  it("needs a token (401), and model:write for writes (403 for member and viewer)", async () => {
    for (const [method, path, body] of [
      ["GET", "/models", undefined],
      ["GET", "/models/gpt-test", undefined],
      ["POST", "/models", { id: "anon", provider: "openai" }],
      ["PUT", "/models/gpt-test", { enabled: false }],
      ["POST", "/models/gpt-test/apikey", { apiKey: "sk-anon" }],
      ["DELETE", "/models/gpt-test", undefined],
    ] as const)
      expectError(keep(await gw.api.call(method, path, { body })), 401);
    for (const token of [member, viewer]) {
      assert.equal((await get("/models", token)).status, 200, "reads are allowed");
      assert.equal((await get("/models/gpt-test", token)).status, 200);
      expectError(await post("/models", { id: "by-member", provider: "openai" }, token), 403, /model:write/);
      expectError(await put("/models/gpt-test", { enabled: false }, token), 403);
      expectError(await post("/models/gpt-test/apikey", { apiKey: "sk-member" }, token), 403);
      expectError(await del("/models/gpt-test", token), 403);
    }
    assert.equal((await get("/models/gpt-test")).body.enabled, true, "unchanged");
  });

  it("locks a field when a PUT changes its value, unlocks it with false, drops the object when empty", async () => {
    const same = await put("/models/gpt-test", {
      inputPrice: 0.00015,
      capabilities: ["vision", "chat"],
      pricingTiers: FULL.pricingTiers,
    });
    assert.equal(same.status, 200);
    assert.equal("fieldOverrides" in same.body, false, "same values: nothing locked");

    const changed = await put("/models/gpt-test", {
      inputPrice: 0.0002,
      contextWindow: 200_000,
      enabled: false,
    });
    assert.deepEqual(changed.body.fieldOverrides, { inputPrice: true, contextWindow: true });
    assert.equal(changed.body.inputPrice, 0.0002);
    assert.equal(changed.body.enabled, false);

    const explicit = await put("/models/gpt-test", {
      fieldOverrides: { capabilities: true, inputPrice: false },
    });
    assert.deepEqual(explicit.body.fieldOverrides, { contextWindow: true, capabilities: true });

    const cleared = await put("/models/gpt-test", {
      fieldOverrides: { contextWindow: false, capabilities: false },
    });
    assert.equal(cleared.status, 200);
    assert.equal("fieldOverrides" in cleared.body, false, "no lock left: the object is removed");
    const row = await gw.handle.db.prisma.model.findUniqueOrThrow({ where: { id: "gpt-test" } });
    assert.equal(row.fieldOverrides, null, "the column is cleared");

    // Other fields change without locking anything; null clears a nullable one.
    const other = await put("/models/gpt-test", { maxOutputTokens: null, limits: [], enabled: true });
    assert.equal(other.body.maxOutputTokens, null);
    assert.deepEqual(other.body.limits, []);
    assert.equal("fieldOverrides" in other.body, false);
  });

  it("rotates the upstream key, and a PUT can remove it", async () => {
    const rotated = await post("/models/gpt-test/apikey", { apiKey: ROTATED });
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.hasApiKey, true);
    assert.equal(rotated.body.apiKey, null);
    const row = await gw.handle.db.prisma.model.findUniqueOrThrow({ where: { id: "gpt-test" } });
    assert.equal(decryptSecret(row.apiKeyEncrypted!, gw.handle.secretKey), ROTATED);
    const removed = await put("/models/claude-min", { apiKey: CANARY });
    assert.equal(removed.body.hasApiKey, true);
    assert.equal((await put("/models/claude-min", { apiKey: null })).body.hasApiKey, false);
  });

  it("serves proxy traffic with a model created through the API, and stops when it is disabled", async () => {
    const created = await post("/models", {
      id: "proxy-model",
      provider: "openai",
      baseUrl: fakeBaseUrl(upstream.url, "openai"),
      upstreamModel: "upstream-name",
      apiKey: "sk-proxy-upstream",
      inputPrice: 0.001,
      outputPrice: 0.002,
    });
    assert.equal(created.status, 201);
    const { prisma } = gw.handle.db;
    const project = await prisma.project.create({
      data: { id: newId("proj"), name: "P", slug: "models-proxy" },
    });
    await prisma.projectModel.create({
      data: { projectId: project.id, modelId: "proxy-model", position: 0 },
    });
    const token = generateProjectToken();
    await prisma.projectToken.create({
      data: {
        id: newId("tok"),
        projectId: project.id,
        name: "t",
        tokenHash: hashToken(token),
        prefix: tokenDisplayPrefix(token),
      },
    });
    const chat = () =>
      fetch(`${gw.handle.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "hi" }], max_tokens: 20 }),
      });
    const answer = await chat();
    assert.equal(answer.status, 200, await answer.clone().text());
    const forwarded = upstream.requests.at(-1)!;
    assert.ok(
      JSON.stringify(forwarded.headers).includes("sk-proxy-upstream"),
      "the decrypted key went upstream",
    );
    assert.equal((forwarded.body as { model: string }).model, "upstream-name");

    assert.equal((await put("/models/proxy-model", { enabled: false })).status, 200);
    assert.equal((await chat()).status, 503, "a disabled model is no longer routed to (cache dropped)");

    // Deleting the model removes it from the project.
    assert.equal((await del("/models/proxy-model")).status, 204);
    assert.equal((await get("/models/proxy-model")).status, 404);
    assert.equal(await prisma.projectModel.count({ where: { projectId: project.id } }), 0);
    assert.equal((await del("/models/proxy-model")).status, 404);
  });

  it("publishes config.model_added and config.model_deleted", async () => {
    const found = await waitFor(
      () => {
        const added = events.find(
          (e) => e.event === "config.model_added" && e.details.modelId === "gpt-test",
        );
        const deleted = events.find(
          (e) => e.event === "config.model_deleted" && e.details.modelId === "proxy-model",
        );
        return added && deleted ? { added, deleted } : undefined;
      },
      { timeoutMs: 10_000, what: "config events" },
    );
    assert.equal(found.added.severity, "info");
    assert.deepEqual(found.added.details, { modelId: "gpt-test", provider: "openai" });
    assert.equal(found.deleted.severity, "info");
    assert.equal(found.deleted.details.provider, "openai");
    assert.equal(JSON.stringify(events).includes("sk-"), false, "no key in events");
  });

  it("audits every write with the changed field names, and never the key", async () => {
    const rows = await waitFor(
      async () => {
        const found = await gw.handle.db.prisma.auditEntry.findMany({
          where: { action: { startsWith: "model:" } },
        });
        return found.some((r) => r.action === "model:delete" && r.result === "success") ? found : undefined;
      },
      { timeoutMs: 10_000, what: "audit rows" },
    );
    const summary = rows.map((r) => `${r.action}:${r.result}`);
    for (const expected of [
      "model:create:success",
      "model:create:error",
      "model:create:forbidden",
      "model:update:success",
      "model:update:error",
      "model:rotate_key:success",
      "model:delete:success",
      "model:delete:forbidden",
    ])
      assert.ok(summary.includes(expected), `${expected} in ${summary.join(", ")}`);
    const create = rows.find((r) => r.action === "model:create" && r.result === "success");
    const details = create!.details as { modelId: string; changed: string[] };
    assert.equal(details.modelId, "gpt-test");
    assert.ok(details.changed.includes("apiKey") && details.changed.includes("inputPrice"));
    const everything = JSON.stringify(rows);
    for (const secret of [CANARY, ROTATED, "sk-proxy-upstream"])
      assert.equal(everything.includes(secret), false, `audit rows hold no ${secret}`);
  });

  it("never answered the key in any response", () => {
    assert.ok(seen.length > 50);
    for (const secret of [CANARY, ROTATED, "sk-proxy-upstream"])
      assert.equal(seen.join("\n").includes(secret), false, `no response holds ${secret}`);
  });
});
