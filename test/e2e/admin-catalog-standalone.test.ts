import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Prisma } from "@gw/db";
import { waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

type Model = Record<string, unknown> & { id: string; inputPrice: number | null };
type Provider = { id: string; name: string; models: Model[] };
type RepoStatus = {
  url: string;
  enabled: boolean;
  resolvedFile: string | null;
  updatedAt: string | null;
  lastChecked: string | null;
  error: string | null;
};
type Status = { repos: RepoStatus[]; cachedAt: string | null; expiresAt: string | null };
type Refresh = { ok: boolean; message: string; errors?: { url: string; error: string }[] };

const gpt4o = (inputPrice: number, outputPrice: number, name: string) => ({
  id: "gpt-4o",
  name,
  contextWindow: 128_000,
  inputPrice,
  outputPrice,
  cachePrice: inputPrice / 2,
  capabilities: ["functionCalling", "json", "vision"],
});

// The fake repositories: one answers its channel file, two only catalog.json (the fallback), four
// is read on its own channel, three fails, bad does not fit the format, redirect points at metadata.
const FILES: Record<string, unknown> = {
  "/one/stable.json": {
    providers: [
      { id: "openai", name: "OpenAI", models: [gpt4o(0.004, 0.012, "GPT-4o (one)")] },
      {
        id: "acme",
        name: "Acme AI",
        models: [
          {
            id: "acme-one",
            name: "Acme One",
            contextWindow: 64_000,
            inputPrice: 0.001,
            outputPrice: 0.002,
            cacheWritePrice: 0.0015,
            pricingTiers: [{ fromTokens: 32_000, inputPrice: 0.002, outputPrice: 0.004 }],
            capabilities: ["json"],
          },
        ],
      },
    ],
  },
  "/two/catalog.json": {
    providers: [
      { id: "openai", name: "OpenAI", models: [gpt4o(0.005, 0.02, "GPT-4o (two)")] },
      {
        id: "mistral",
        name: "Mistral AI",
        models: [
          { id: "mistral-two", name: "M2", contextWindow: 32_000, inputPrice: 0.0002, outputPrice: 0.0006 },
        ],
      },
    ],
  },
  "/four/latest.json": {
    providers: [
      {
        id: "xai",
        name: "xAI",
        models: [{ id: "grok-latest", name: "G", contextWindow: 8_000, inputPrice: 0.1, outputPrice: 0.2 }],
      },
    ],
  },
  "/bad/stable.json": {
    providers: [
      {
        id: "x",
        name: "X",
        models: [{ id: "m", name: "M", contextWindow: 1, inputPrice: -1, outputPrice: 1 }],
      },
    ],
  },
};

describe("management API: provider catalog (standalone)", () => {
  let gateway: AdminGateway;
  let repoServer: Server;
  let base: string;
  const requested: string[] = [];
  let viewer: string;
  let member: string;
  let noModels: string;

  const api = () => gateway.api;
  const admin = () => gateway.adminToken;
  const prisma = () => gateway.handle.db.prisma;
  const repo = (path: string, extra: Prisma.InputJsonObject = {}): Prisma.InputJsonObject => ({
    url: `${base}/${path}`,
    ...extra,
  });
  const setRepos = async (providerRepos: Prisma.InputJsonObject[]) => {
    const value = { channel: "stable", providerRepos };
    await prisma().setting.upsert({
      where: { id: "global" },
      create: { id: "global", value },
      update: { value },
    });
  };
  const status = async () => (await api().get<Status>("/catalog/status", viewer)).body;
  const statusOf = (s: Status, path: string) => s.repos.find((r) => r.url === `${base}/${path}`)!;
  const modelRow = (id: string) => prisma().model.findUniqueOrThrow({ where: { id } });

  before(async () => {
    repoServer = createServer((request, response) => {
      const path = request.url ?? "/";
      requested.push(path);
      if (path === "/redirect/stable.json") {
        response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        return;
      }
      if (path.startsWith("/three/")) return void response.writeHead(500).end("boom");
      const file = FILES[path];
      if (!file) return void response.writeHead(404).end("not found");
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(file));
    });
    await new Promise<void>((resolve) => repoServer.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(repoServer.address() as AddressInfo).port}`;
    gateway = await startAdminGateway("catalog");
    viewer = (await gateway.userWithRole("viewer")).token;
    member = (await gateway.userWithRole("member")).token;
    const role = await api().post(
      "/roles",
      { name: "projects-only", permissions: ["project:read"] },
      admin(),
    );
    assert.equal(role.status, 201);
    noModels = (await gateway.userWithRole("projects-only")).token;
  });

  after(async () => {
    await gateway?.stop();
    await new Promise((resolve) => repoServer?.close(resolve));
  });

  it("GET /providers serves the built-in catalog before anything is fetched", async () => {
    const answer = await api().get<{ providers: Provider[] }>("/providers", viewer);
    assert.equal(answer.status, 200);
    const { providers } = answer.body;
    assert.deepEqual(
      providers.map((p) => p.id),
      ["openai", "anthropic", "gemini", "mistral", "cohere", "xai", "ollama", "custom"],
    );
    assert.deepEqual(providers.find((p) => p.id === "custom")!.models, []);
    const models = providers.flatMap((p) => p.models);
    assert.ok(models.length > 8 && models.length <= 40, `${models.length} built-in models`);
    assert.equal(providers[0]!.models.find((m) => m.id === "gpt-4o")!.inputPrice, 0.0025);
    for (const m of providers.find((p) => p.id === "ollama")!.models) assert.equal(m.inputPrice, 0);
    assert.equal(requested.length, 0, "nothing fetched");
    assert.equal((await api().get("/providers")).status, 401);
    const refused = await api().get<{ error: { code: string } }>("/providers", noModels);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, "forbidden");
  });

  it("GET /catalog/status lists the configured repos, unfetched, with the cache times", async () => {
    const empty = await status();
    assert.deepEqual(empty.repos, []);
    assert.ok(empty.cachedAt && empty.expiresAt, "the built-in catalog is cached");
    assert.equal(Date.parse(empty.expiresAt) - Date.parse(empty.cachedAt), 5 * 60_000);
    assert.equal((await api().get("/catalog/status")).status, 401);
    assert.equal((await api().get("/catalog/status", noModels)).status, 403);

    await setRepos([
      repo("one"),
      repo("two"),
      repo("three"),
      repo("bad"),
      { url: "http://169.254.169.254/catalog" },
      repo("redirect"),
      repo("four", { channel: "latest" }),
      repo("disabled", { enabled: false }),
    ]);
    const configured = await status();
    assert.equal(configured.repos.length, 8);
    for (const r of configured.repos)
      assert.deepEqual([r.resolvedFile, r.updatedAt, r.lastChecked, r.error], [null, null, null, null]);
    assert.equal(statusOf(configured, "disabled").enabled, false);
    assert.equal(statusOf(configured, "one").enabled, true);
  });

  it("POST /catalog/refresh needs settings:write: 401 without a token, 403 for viewer and member", async () => {
    assert.equal((await api().post("/catalog/refresh", {})).status, 401);
    for (const token of [viewer, member]) {
      const refused = await api().post<{ error: { code: string } }>("/catalog/refresh", {}, token);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, "forbidden");
    }
    const badJson = await fetch(`${gateway.handle.url}/api/catalog/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin()}`, "content-type": "application/json" },
      body: "{",
    });
    assert.equal(badJson.status, 400);
    assert.equal(requested.length, 0, "no refusal fetched anything");
  });

  it("refresh with failing repos: ok false with each error, the rest fetched, models synced", async () => {
    await prisma().model.create({
      data: {
        id: "gpt-4o",
        provider: "openai",
        inputPrice: 1,
        outputPrice: 1,
        contextWindow: 8_000,
        fieldOverrides: { outputPrice: true },
      },
    });
    await prisma().model.create({
      data: { id: "acme-one", provider: "custom", inputPrice: 9, outputPrice: 9 },
    });
    await prisma().model.create({
      data: { id: "not-in-catalog", provider: "custom", inputPrice: 3, outputPrice: 4 },
    });

    const answer = await api().post<Refresh>("/catalog/refresh", {}, admin());
    assert.equal(answer.status, 200);
    assert.equal(answer.body.ok, false);
    assert.match(answer.body.message, /Fetched 3 of 7 provider repositories; 2 models updated/);
    const errors = Object.fromEntries(answer.body.errors!.map((e) => [e.url.replace(base, ""), e.error]));
    assert.deepEqual(Object.keys(errors).sort(), [
      "/bad",
      "/redirect",
      "/three",
      "http://169.254.169.254/catalog",
    ]);
    assert.match(errors["/three"]!, /HTTP 500/);
    assert.match(errors["/bad"]!, /catalog format: providers\.0\.models\.0\.inputPrice/);
    assert.match(errors["http://169.254.169.254/catalog"]!, /link-local or a cloud metadata/);
    assert.match(errors["/redirect"]!, /link-local or a cloud metadata/);

    // The fallback: two has no stable.json, so catalog.json was read; four used its own channel.
    assert.ok(requested.includes("/two/stable.json") && requested.includes("/two/catalog.json"));
    assert.ok(!requested.some((p) => p.startsWith("/disabled")), "a disabled repo is not fetched");
    const after = await status();
    assert.equal(statusOf(after, "one").resolvedFile, `${base}/one/stable.json`);
    assert.equal(statusOf(after, "two").resolvedFile, `${base}/two/catalog.json`);
    assert.equal(statusOf(after, "four").resolvedFile, `${base}/four/latest.json`);
    for (const path of ["one", "two", "four"]) {
      const s = statusOf(after, path);
      assert.equal(s.error, null);
      assert.ok(s.updatedAt && s.lastChecked);
    }
    assert.match(statusOf(after, "three").error!, /HTTP 500/);
    assert.equal(statusOf(after, "three").resolvedFile, null);
    assert.ok(statusOf(after, "three").lastChecked);
    const metadata = after.repos.find((r) => r.url.startsWith("http://169.254.169.254"))!;
    assert.match(metadata.error!, /refused/);
    assert.deepEqual(
      [statusOf(after, "disabled").lastChecked, statusOf(after, "disabled").error],
      [null, null],
    );
    assert.equal(Date.parse(after.expiresAt!) - Date.parse(after.cachedAt!), 5 * 60_000);

    // gpt-4o: repo two (later) wins over one; the locked outputPrice keeps the operator's value.
    const gpt = await modelRow("gpt-4o");
    assert.equal(gpt.inputPrice!.toNumber(), 0.005);
    assert.equal(gpt.outputPrice!.toNumber(), 1);
    assert.equal(gpt.cachePrice!.toNumber(), 0.0025);
    assert.equal(gpt.contextWindow, 128_000);
    assert.deepEqual(gpt.capabilities, ["functionCalling", "json", "vision"]);
    const defaults = gpt.catalogDefaults as Record<string, unknown>;
    assert.equal(defaults.outputPrice, 0.02);
    assert.equal(defaults.inputPrice, 0.005);
    const acme = await modelRow("acme-one");
    assert.deepEqual(
      [acme.inputPrice!.toNumber(), acme.outputPrice!.toNumber(), acme.cacheWritePrice!.toNumber()],
      [0.001, 0.002, 0.0015],
    );
    assert.deepEqual(acme.pricingTiers, [{ fromTokens: 32_000, inputPrice: 0.002, outputPrice: 0.004 }]);
    const untouched = await modelRow("not-in-catalog");
    assert.deepEqual([untouched.inputPrice!.toNumber(), untouched.catalogDefaults], [3, null]);
  });

  it("GET /providers serves the merged catalog: built-in, then repos in order", async () => {
    const { providers } = (await api().get<{ providers: Provider[] }>("/providers", member)).body;
    const byId = new Map(providers.map((p) => [p.id, p]));
    const openai = byId.get("openai")!;
    assert.equal(openai.models.find((m) => m.id === "gpt-4o")!.name, "GPT-4o (two)");
    assert.ok(
      openai.models.some((m) => m.id === "gpt-4o-mini"),
      "built-in models stay",
    );
    assert.ok(
      byId.get("acme")!.models.some((m) => m.id === "acme-one"),
      "a repo adds a provider",
    );
    assert.ok(byId.get("mistral")!.models.some((m) => m.id === "mistral-two"));
    assert.ok(byId.get("xai")!.models.some((m) => m.id === "grok-latest"));
    assert.ok(!providers.some((p) => p.id === "x"), "a file that does not fit is not used");
  });

  it("refresh with healthy repos: ok true; unchanged content does not rewrite models", async () => {
    const before = await status();
    await setRepos([repo("one"), repo("two")]);
    const answer = await api().post<Refresh>("/catalog/refresh", {}, admin());
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      ok: true,
      message: "Fetched 2 of 2 provider repositories; 0 models updated from the catalog.",
    });
    const after = await status();
    assert.equal(after.repos.length, 2);
    const [was, now] = [statusOf(before, "one"), statusOf(after, "one")];
    assert.equal(now.updatedAt, was.updatedAt, "same content: updatedAt kept");
    assert.ok(Date.parse(now.lastChecked!) >= Date.parse(was.lastChecked!));
  });

  it("a lifted lock lets the next refresh apply the catalog value", async () => {
    await prisma().model.update({ where: { id: "gpt-4o" }, data: { fieldOverrides: { inputPrice: true } } });
    const answer = await api().post<Refresh>("/catalog/refresh", {}, admin());
    assert.equal(answer.body.ok, true);
    assert.match(answer.body.message, /1 model updated/);
    const gpt = await modelRow("gpt-4o");
    assert.equal(gpt.outputPrice!.toNumber(), 0.02);
    assert.equal(gpt.inputPrice!.toNumber(), 0.005, "inputPrice, now locked, keeps its value");
  });

  it("with no repo enabled, refresh answers ok and the built-in catalog is served", async () => {
    await setRepos([repo("one", { enabled: false })]);
    const answer = await api().post<Refresh>("/catalog/refresh", {}, admin());
    assert.equal(answer.body.ok, true);
    assert.match(answer.body.message, /No provider repository is enabled/);
    const { providers } = (await api().get<{ providers: Provider[] }>("/providers", viewer)).body;
    assert.equal(
      providers.find((p) => p.id === "openai")!.models.find((m) => m.id === "gpt-4o")!.inputPrice,
      0.0025,
    );
    assert.ok(!providers.some((p) => p.id === "acme"));
  });

  it("audits refreshes and refused attempts", async () => {
    const rows = await waitFor(
      async () => {
        const found = await prisma().auditEntry.findMany({ where: { action: "catalog:refresh" } });
        return found.filter((r) => r.result === "success").length >= 4 ? found : undefined;
      },
      { timeoutMs: 10_000, what: "catalog audit rows" },
    );
    assert.ok(rows.some((r) => r.result === "forbidden"));
    const details = rows.find((r) => r.result === "success")!.details as Record<string, unknown>;
    assert.deepEqual(Object.keys(details).sort(), ["failed", "modelsUpdated", "repos", "status"]);
  });
});
