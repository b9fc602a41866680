import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";
import { type RecordedEvent, recordEvents } from "../support/event-recorder.js";

type ErrorBody = { error: { message: string; type: string; code: string } };
type Project = {
  id: string;
  name: string;
  slug: string;
  defaultTimeoutMs: number | null;
  policies: string[];
  models: string[];
  budgets: Record<string, unknown>[];
  routing: Record<string, unknown> | null;
  guardrails: Record<string, unknown> | null;
  pii: Record<string, unknown> | null;
  spendGroupId: string | null;
  notifications: { channels: string[] } | null;
  createdAt: string;
  updatedAt: string;
  tokens?: Token[];
  members?: Member[];
};
type Token = {
  id: string;
  name: string;
  description: string | null;
  prefix: string;
  tags: Record<string, string>;
  limits: Record<string, unknown>[];
  createdAt: string;
  revoked: boolean;
  token?: string;
};
type Member = { userId: string; email: string | null; role: string; createdAt: string };

const GUARDRAILS = { rules: [{ name: "no-secrets", type: "regex", pattern: "sk-[a-z]+", action: "block" }] };
const PII = { entities: ["email", "phone"], action: "redact" };

// Projects, their tokens and members through the management API, over real HTTP in standalone mode.
describe("management API: projects, tokens, members (standalone)", () => {
  let gateway: AdminGateway;
  let upstream: FakeUpstream;
  let events: RecordedEvent[];
  let stopEvents: () => Promise<void>;
  let admin: string;
  let viewer: { id: string; token: string };
  let member: { id: string; token: string };
  let created: Project;
  /** Every token value the API handed out: none may show up again anywhere. */
  const tokenValues: string[] = [];

  const api = () => gateway.api;
  const errorOf = (answer: { body: unknown }) => (answer.body as ErrorBody).error;
  const patch = (path: string, body: unknown, token?: string) =>
    api().call<Project>("PATCH", path, { body, token });
  const chat = (token: string) =>
    fetch(`${gateway.handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m-alpha", messages: [{ role: "user", content: "hello" }] }),
    });

  before(async () => {
    gateway = await startAdminGateway("projects");
    upstream = await startFakeUpstream();
    admin = gateway.adminToken;
    const recorder = await recordEvents(gateway.handle.bus, "events.config.>");
    events = recorder.events;
    stopEvents = recorder.stop;
    // Models are another resource's routes: made directly, in the row shape of services/standalone/src/seed.ts.
    for (const id of ["m-alpha", "m-beta", "m-gamma"])
      await gateway.handle.db.prisma.model.create({
        data: {
          id,
          provider: "custom",
          baseUrl: upstream.baseUrl,
          inputPrice: 0.15,
          outputPrice: 0.6,
          contextWindow: 128_000,
        },
      });
    viewer = await gateway.userWithRole("viewer");
    member = await gateway.userWithRole("member");
  });

  after(async () => {
    await stopEvents?.();
    await gateway?.stop();
    await upstream?.close();
  });

  it("creates a project with every field, in order, and announces it", async () => {
    const answer = await api().post<Project>(
      "/projects",
      {
        name: "Acme Support",
        slug: "acme",
        defaultTimeoutMs: 30_000,
        models: ["m-beta", "m-alpha"],
        policies: ["health", "cheapest"],
        budgets: [
          { metric: "cost", limit: 50, windowType: "period", windowSize: "monthly" },
          { metric: "calls", limit: 1000, windowType: "rolling", windowSize: "hour", warnAt: 90 },
        ],
        routing: { maxAttempts: 2, weights: { "m-alpha": 2 } },
        guardrails: GUARDRAILS,
        notifications: { channels: ["ch_ops"] },
      },
      member.token,
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    created = answer.body;
    assert.match(created.id, /^proj_/);
    assert.equal(created.slug, "acme");
    assert.deepEqual(created.models, ["m-beta", "m-alpha"], "assignment order is kept");
    assert.deepEqual(created.policies, ["health", "cheapest"]);
    assert.equal(created.budgets[0]!.onExhausted, "block", "onExhausted defaults to block");
    assert.equal(created.budgets[1]!.warnAt, 90);
    assert.deepEqual(created.guardrails, GUARDRAILS);
    assert.equal(created.pii, null);
    assert.deepEqual(created.notifications, { channels: ["ch_ops"] });
    assert.equal(created.defaultTimeoutMs, 30_000);
    const positions = await gateway.handle.db.prisma.projectModel.findMany({
      where: { projectId: created.id },
      orderBy: { position: "asc" },
    });
    assert.deepEqual(
      positions.map((p) => [p.modelId, p.position]),
      [
        ["m-beta", 0],
        ["m-alpha", 1],
      ],
    );
    const event = await waitFor(() => events.find((e) => e.event === "config.project_created"), {
      what: "config.project_created",
    });
    assert.equal(event.severity, "info");
    assert.equal(event.projectId, created.id);
    assert.deepEqual(event.details, { projectId: created.id, slug: "acme" });

    const derived = await api().post<Project>("/projects", { name: "  Café Ünïcode -- Team!! " }, admin);
    assert.equal(derived.status, 201);
    assert.equal(derived.body.slug, "cafe-unicode-team", "the slug is derived from the name");
    assert.deepEqual(derived.body.models, []);
    assert.deepEqual(derived.body.budgets, []);

    const list = await api().get<{ projects: Project[] }>("/projects", viewer.token);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.projects.map((p) => p.slug),
      ["acme", "cafe-unicode-team"],
    );
    assert.deepEqual(list.body.projects[0]!.models, ["m-beta", "m-alpha"]);
  });

  it("refuses bad project bodies with 400 naming the field, and taken slugs with 409", async () => {
    const refused = async (body: unknown, pattern: RegExp) => {
      const answer = await api().post("/projects", body, admin);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(errorOf(answer).type, "invalid_request_error");
      assert.match(errorOf(answer).message, pattern, JSON.stringify(body));
    };
    await refused({}, /^name/);
    await refused({ name: "x", slug: "Bad Slug" }, /^slug/);
    await refused({ name: "x", slug: "-leading" }, /^slug/);
    await refused({ name: "x", slug: "a".repeat(64) }, /^slug/);
    await refused({ name: "!!!" }, /^slug/);
    await refused({ name: "x", models: ["m-alpha", "m-nope"] }, /models: .*"m-nope"/);
    await refused({ name: "x", models: ["m-alpha", "m-alpha"] }, /^models\.1/);
    await refused(
      { name: "x", budgets: [{ metric: "cost", limit: 1, windowType: "period", windowSize: "hour" }] },
      /^budgets\.0\.windowSize/,
    );
    await refused(
      { name: "x", budgets: [{ metric: "cost", limit: 1, windowType: "rolling", windowSize: "fortnight" }] },
      /^budgets\.0\.windowSize/,
    );
    await refused(
      { name: "x", budgets: [{ metric: "euros", limit: 1, windowType: "period", windowSize: "daily" }] },
      /^budgets\.0\.metric/,
    );
    await refused(
      {
        name: "x",
        budgets: [
          { metric: "cost", limit: 1, windowType: "period", windowSize: "daily", onExhausted: "warn" },
        ],
      },
      /^budgets\.0\.onExhausted/,
    );
    await refused({ name: "x", policies: ["fastest"] }, /^policies\.0/);
    await refused({ name: "x", defaultTimeoutMs: 0 }, /^defaultTimeoutMs/);
    await refused({ name: "x", defaultTimeoutMs: 2 ** 40 }, /^defaultTimeoutMs/);
    await refused({ name: "x", spendGroupId: "sg_missing" }, /spendGroupId: .*"sg_missing"/);
    await refused(
      { name: "x", routing: { llm: { modelId: "m-nope" } } },
      /routing\.llm\.modelId: .*"m-nope"/,
    );
    await refused({ name: "x", guardrails: ["not", "an", "object"] }, /^guardrails/);
    await refused({ name: "x", notifications: { channels: "ch" } }, /^notifications\.channels/);
    await refused({ name: "x", surprise: true }, /surprise/);

    const taken = await api().post("/projects", { name: "Other", slug: "acme" }, admin);
    assert.equal(taken.status, 409);
    assert.equal(errorOf(taken).type, "conflict_error");
    const derivedTaken = await api().post("/projects", { name: "ACME" }, admin);
    assert.equal(derivedTaken.status, 409, "a derived slug that is taken is a conflict too");
  });

  it("guards every route: 401 without a token, 403 for a viewer's writes, reads allowed", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", "/projects"],
      ["POST", "/projects", { name: "Nope" }],
      ["GET", "/projects/acme"],
      ["PUT", "/projects/acme", { name: "Nope" }],
      ["DELETE", "/projects/acme"],
      ["PATCH", `/projects/${created.id}/guardrails`, { pii: null }],
      ["GET", "/projects/acme/tokens"],
      ["POST", "/projects/acme/tokens", { name: "nope" }],
      ["PUT", "/projects/acme/tokens/tok_x", { tags: {} }],
      ["DELETE", "/projects/acme/tokens/tok_x"],
      ["GET", "/projects/acme/members"],
      ["POST", "/projects/acme/members", { userId: viewer.id, role: "viewer" }],
      ["PUT", `/projects/acme/members/${viewer.id}`, { role: "editor" }],
      ["DELETE", `/projects/acme/members/${viewer.id}`],
    ];
    for (const [method, path, body] of routes) {
      const anonymous = await api().call(method, path, { body });
      assert.equal(anonymous.status, 401, `${method} ${path} without a token`);
      const asViewer = await api().call(method, path, { body, token: viewer.token });
      if (method === "GET") assert.equal(asViewer.status, 200, `${method} ${path} as viewer`);
      else {
        assert.equal(asViewer.status, 403, `${method} ${path} as viewer`);
        assert.match(errorOf(asViewer).message, /project:write/);
      }
    }
    const unchanged = await api().get<Project>("/projects/acme", admin);
    assert.equal(unchanged.body.name, "Acme Support", "nothing a refused call sent was applied");
  });

  it("reads one project with its tokens and members; 404 for an unknown slug", async () => {
    const one = await api().get<Project>("/projects/acme", viewer.token);
    assert.equal(one.status, 200);
    assert.equal(one.body.id, created.id);
    assert.deepEqual(one.body.tokens, []);
    assert.deepEqual(one.body.members, []);
    const missing = await api().get("/projects/nope", admin);
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing).type, "not_found_error");
  });

  it("updates a project: models replaced in order, guardrails and pii omitted/null/object", async () => {
    const put = (body: unknown) => api().put<Project>("/projects/acme", body, member.token);
    const set = await put({ pii: PII, models: ["m-gamma", "m-alpha", "m-beta"], defaultTimeoutMs: null });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.models, ["m-gamma", "m-alpha", "m-beta"]);
    assert.deepEqual(set.body.pii, PII);
    assert.deepEqual(set.body.guardrails, GUARDRAILS, "omitted guardrails are unchanged");
    assert.equal(set.body.defaultTimeoutMs, null);

    const renamed = await put({ name: "Acme Customer Support" });
    assert.deepEqual(renamed.body.guardrails, GUARDRAILS, "omitted: unchanged");
    assert.deepEqual(renamed.body.pii, PII, "omitted: unchanged");
    assert.deepEqual(renamed.body.models, ["m-gamma", "m-alpha", "m-beta"], "omitted models: unchanged");

    const cleared = await put({ guardrails: null });
    assert.equal(cleared.body.guardrails, null, "null clears");
    assert.deepEqual(cleared.body.pii, PII);

    const replaced = await put({ guardrails: { rules: [] }, pii: { entities: ["ssn"] } });
    assert.deepEqual(replaced.body.guardrails, { rules: [] }, "an object replaces, never merges");
    assert.deepEqual(replaced.body.pii, { entities: ["ssn"] });

    const fewer = await put({ models: ["m-alpha"] });
    assert.deepEqual(fewer.body.models, ["m-alpha"]);
    const stored = await gateway.handle.db.prisma.projectModel.count({ where: { projectId: created.id } });
    assert.equal(stored, 1, "the old assignments are gone");

    assert.equal((await put({ models: ["m-zeta"] })).status, 400);
    assert.equal((await put({ slug: "Not OK" })).status, 400);
    assert.equal((await put({ budgets: [{ metric: "calls", limit: 1, windowType: "period" }] })).status, 400);
    assert.equal((await put({ slug: "cafe-unicode-team" })).status, 409, "the other project's slug");
    assert.equal((await api().put("/projects/nope", { name: "x" }, admin)).status, 404);
    const after = await api().get<Project>("/projects/acme", admin);
    assert.deepEqual(after.body.models, ["m-alpha"], "refused updates changed nothing");
  });

  it("patches guardrails and pii by project id only", async () => {
    const path = `/projects/${created.id}/guardrails`;
    const both = await patch(path, { guardrails: GUARDRAILS, pii: PII }, member.token);
    assert.equal(both.status, 200, JSON.stringify(both.body));
    assert.deepEqual(both.body.guardrails, GUARDRAILS);
    assert.deepEqual(both.body.pii, PII);
    const onlyPii = await patch(path, { pii: null }, admin);
    assert.equal(onlyPii.body.pii, null, "null clears");
    assert.deepEqual(onlyPii.body.guardrails, GUARDRAILS, "omitted: unchanged");
    const onlyGuardrails = await patch(path, { guardrails: { rules: [] } }, admin);
    assert.deepEqual(onlyGuardrails.body.guardrails, { rules: [] });
    assert.equal(onlyGuardrails.body.pii, null);
    assert.equal(onlyGuardrails.body.name, "Acme Customer Support", "nothing else moves");

    assert.equal((await patch(path, {}, admin)).status, 400, "neither field");
    assert.equal((await patch(path, { name: "x" }, admin)).status, 400, "only those two fields");
    assert.equal((await patch(path, { pii: "redact" }, admin)).status, 400);
    assert.equal(
      (await patch("/projects/acme/guardrails", { pii: null }, admin)).status,
      404,
      "by id, not slug",
    );
  });

  it("creates tokens whose value is shown once, and lists them without it", async () => {
    const answer = await api().post<Token>(
      "/projects/acme/tokens",
      {
        name: "backend",
        description: "the support backend",
        tags: { team: "support", env: "prod" },
        limits: [
          { metric: "calls", limit: 100, window: "daily", mode: "override" },
          { metric: "cost", limit: 5, window: "hour", warnAt: 50 },
        ],
      },
      member.token,
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const value = answer.body.token!;
    tokenValues.push(value);
    assert.match(value, /^sk-rt-/);
    assert.match(answer.body.id, /^tok_/);
    assert.ok(value.startsWith(answer.body.prefix), "the prefix is the value's start");
    assert.ok(answer.body.prefix.length < value.length - 8, "the prefix is much shorter than the value");
    assert.deepEqual(answer.body.tags, { team: "support", env: "prod" });
    assert.equal(answer.body.limits[1]!.mode, "extend", "mode defaults to extend");
    assert.equal(answer.body.revoked, false);
    assert.equal(answer.body.description, "the support backend");

    const list = await api().get<{ tokens: Token[] }>("/projects/acme/tokens", viewer.token);
    assert.equal(list.status, 200);
    assert.equal(list.body.tokens.length, 1);
    assert.equal(list.body.tokens[0]!.token, undefined);
    assert.deepEqual(Object.keys(list.body.tokens[0]!).sort(), [
      "createdAt",
      "description",
      "id",
      "limits",
      "name",
      "prefix",
      "revoked",
      "tags",
    ]);
    const project = await api().get<Project>("/projects/acme", admin);
    assert.equal(project.body.tokens!.length, 1);
    for (const later of [list, project])
      assert.equal(JSON.stringify(later.body).includes(value), false, "the value is never shown again");

    const refused = async (body: unknown, pattern: RegExp) => {
      const bad = await api().post("/projects/acme/tokens", body, admin);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match(errorOf(bad).message, pattern);
    };
    await refused({}, /^name/);
    await refused(
      { name: "t", limits: [{ metric: "calls", limit: 1, window: "daily", mode: "replace" }] },
      /mode/,
    );
    await refused({ name: "t", limits: [{ metric: "calls", limit: 1, window: "fortnight" }] }, /window/);
    await refused({ name: "t", limits: [{ metric: "calls", limit: -1, window: "daily" }] }, /limit/);
    await refused({ name: "t", tags: { team: 7 } }, /^tags\.team/);
    await refused({ name: "t", tags: ["a"] }, /^tags/);
    assert.equal((await api().post("/projects/nope/tokens", { name: "t" }, admin)).status, 404);
  });

  it("updates tokens: tags replaced, {} clears; 404 for another project's token", async () => {
    const [token] = (await api().get<{ tokens: Token[] }>("/projects/acme/tokens", admin)).body.tokens;
    const path = `/projects/acme/tokens/${token!.id}`;
    const replaced = await api().put<Token>(path, { tags: { team: "billing" } }, member.token);
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.tags, { team: "billing" }, "replaced, not merged");
    assert.equal(replaced.body.name, "backend", "omitted fields are unchanged");
    assert.equal(replaced.body.token, undefined);
    const renamed = await api().put<Token>(path, { name: "backend-v2", description: null }, admin);
    assert.equal(renamed.body.name, "backend-v2");
    assert.equal(renamed.body.description, null);
    assert.deepEqual(renamed.body.tags, { team: "billing" });
    const cleared = await api().put<Token>(path, { tags: {} }, admin);
    assert.deepEqual(cleared.body.tags, {});
    const limited = await api().put<Token>(
      path,
      { limits: [{ metric: "calls", limit: 5, window: "minute" }] },
      admin,
    );
    assert.deepEqual(limited.body.limits, [{ metric: "calls", limit: 5, window: "minute", mode: "extend" }]);

    assert.equal(
      (await api().put(path, { limits: [{ metric: "calls", limit: 1, window: "day", mode: "x" }] }, admin))
        .status,
      400,
    );
    assert.equal((await api().put("/projects/acme/tokens/tok_missing", { tags: {} }, admin)).status, 404);
    assert.equal(
      (await api().put(`/projects/cafe-unicode-team/tokens/${token!.id}`, { tags: {} }, admin)).status,
      404,
      "a token is reached through its own project only",
    );
    assert.equal((await api().del(`/projects/cafe-unicode-team/tokens/${token!.id}`, admin)).status, 404);
  });

  it("a created token works against the proxy until it is deleted, then 401 at once", async () => {
    const answer = await api().post<Token>("/projects/acme/tokens", { name: "proxy-check" }, admin);
    assert.equal(answer.status, 201);
    const value = answer.body.token!;
    tokenValues.push(value);
    const served = await chat(value);
    assert.equal(served.status, 200, await served.clone().text());
    const body = (await served.json()) as { choices: unknown[] };
    assert.ok(body.choices.length > 0);
    assert.ok(
      upstream.requests.some((r) => r.kind === "openai"),
      "the fake upstream was called",
    );

    const deleted = await api().del(`/projects/acme/tokens/${answer.body.id}`, member.token);
    assert.equal(deleted.status, 204);
    await waitFor(async () => (await chat(value)).status === 401, {
      timeoutMs: 2000,
      what: "the deleted token is refused",
    });
    const listed = await api().get<{ tokens: Token[] }>("/projects/acme/tokens", admin);
    assert.equal(listed.body.tokens.find((t) => t.id === answer.body.id)?.revoked, true);
    const again = await api().del(`/projects/acme/tokens/${answer.body.id}`, admin);
    assert.equal(again.status, 409, "a revoked token cannot be changed or revoked again");
  });

  it("manages members: add, 409 when already one, 400 for an unknown user, update, remove", async () => {
    const added = await api().post<Member>(
      "/projects/acme/members",
      { userId: viewer.id, role: "viewer" },
      member.token,
    );
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.userId, viewer.id);
    assert.equal(added.body.role, "viewer");
    assert.match(added.body.email!, /^viewer-\d+@example\.com$/);
    const twice = await api().post("/projects/acme/members", { userId: viewer.id, role: "editor" }, admin);
    assert.equal(twice.status, 409);
    const unknown = await api().post(
      "/projects/acme/members",
      { userId: "usr_nobody", role: "viewer" },
      admin,
    );
    assert.equal(unknown.status, 400);
    assert.match(errorOf(unknown).message, /^userId/);
    const badRole = await api().post("/projects/acme/members", { userId: member.id, role: "owner" }, admin);
    assert.equal(badRole.status, 400);
    assert.match(errorOf(badRole).message, /^role/);
    assert.equal(
      (await api().post("/projects/nope/members", { userId: member.id, role: "viewer" }, admin)).status,
      404,
    );

    await api().post("/projects/acme/members", { userId: member.id, role: "editor" }, admin);
    const list = await api().get<{ members: Member[] }>("/projects/acme/members", viewer.token);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.members.map((m) => [m.userId, m.role]),
      [
        [viewer.id, "viewer"],
        [member.id, "editor"],
      ],
    );

    const promoted = await api().put<Member>(
      `/projects/acme/members/${viewer.id}`,
      { role: "editor" },
      admin,
    );
    assert.equal(promoted.status, 200);
    assert.equal(promoted.body.role, "editor");
    assert.equal(
      (await api().put(`/projects/acme/members/${viewer.id}`, { role: "boss" }, admin)).status,
      400,
    );
    assert.equal(
      (await api().put("/projects/acme/members/usr_nobody", { role: "viewer" }, admin)).status,
      404,
    );

    assert.equal((await api().del(`/projects/acme/members/${viewer.id}`, admin)).status, 204);
    assert.equal((await api().del(`/projects/acme/members/${viewer.id}`, admin)).status, 404);
    const project = await api().get<Project>("/projects/acme", admin);
    assert.deepEqual(
      project.body.members!.map((m) => m.userId),
      [member.id],
    );
  });

  it("deletes a project: 204, its tokens stop working, config.project_deleted; then 404", async () => {
    const answer = await api().post<Token>("/projects/acme/tokens", { name: "goes-with-project" }, admin);
    const value = answer.body.token!;
    tokenValues.push(value);
    assert.equal((await chat(value)).status, 200);

    assert.equal((await api().del("/projects/acme", member.token)).status, 204);
    assert.equal((await api().get("/projects/acme", admin)).status, 404);
    assert.equal((await api().del("/projects/acme", admin)).status, 404);
    await waitFor(async () => (await chat(value)).status === 401, { timeoutMs: 2000, what: "token refused" });
    const prisma = gateway.handle.db.prisma;
    assert.equal(await prisma.projectMember.count({ where: { projectId: created.id } }), 0);
    assert.equal(await prisma.projectToken.count({ where: { projectId: created.id } }), 0);
    const event = await waitFor(() => events.find((e) => e.event === "config.project_deleted"), {
      what: "config.project_deleted",
    });
    assert.equal(event.projectId, created.id);
    assert.deepEqual(event.details, { projectId: created.id, slug: "acme" });
    // The slug is free again.
    assert.equal((await api().post("/projects", { name: "Acme again", slug: "acme" }, admin)).status, 201);
  });

  it("audits every change with safe details, and no token value anywhere in the audit trail", async () => {
    const rows = await waitFor(
      async () => {
        const found = await gateway.handle.db.prisma.auditEntry.findMany();
        return found.some((r) => r.action === "project:delete") ? found : undefined;
      },
      { timeoutMs: 10_000, what: "audit rows" },
    );
    const summary = rows.map((r) => `${r.action}:${r.result}`);
    for (const expected of [
      "project:create:success",
      "project:create:error",
      "project:create:forbidden",
      "project:update:success",
      "project:update_guardrails:success",
      "project:delete:success",
      "token:create:success",
      "token:update:success",
      "token:delete:success",
      "member:add:success",
      "member:add:error",
      "member:update:success",
      "member:remove:success",
    ])
      assert.ok(summary.includes(expected), `${expected} in ${summary.join(", ")}`);
    const createdToken = rows.find((r) => r.action === "token:create" && r.result === "success");
    const details = createdToken!.details as Record<string, unknown>;
    assert.equal(details.slug, "acme");
    assert.ok(typeof details.tokenId === "string" && typeof details.tokenName === "string");
    const update = rows.find((r) => r.action === "project:update" && r.result === "success");
    assert.ok(Array.isArray((update!.details as { changed: unknown }).changed));
    const everything = JSON.stringify(rows);
    assert.equal(tokenValues.length, 3);
    for (const value of tokenValues)
      assert.equal(everything.includes(value), false, "no token value in audit rows");
    assert.equal(everything.includes("no-secrets"), false, "bodies are not copied into audit rows");
  });
});
