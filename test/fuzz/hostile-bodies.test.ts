import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, seedProject, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, seededRandom, startFakeUpstream } from "@gw/testing";
import { testServiceContext } from "../support/silent-context.js";

/**
 * Hostile input never gets a 5xx or a crash: every body of the committed corpus
 * (`test/fuzz/corpus/*.json`, raw bytes, many not even JSON) is sent to every proxy endpoint and
 * must be refused with a 4xx in that endpoint's error envelope, without reaching the upstream.
 * Then seeded random mutations of valid bodies: each answer is a 200 or a 4xx, never a 5xx.
 */
const CORPUS_DIR = join(import.meta.dirname, "corpus");
const ENDPOINTS = ["/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/messages/count_tokens"];
const BODY_LIMIT = 1024 * 1024;

describe("hostile request bodies", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-fuzz-"));
  const context = testServiceContext("fuzz");
  let url: string;
  let token: string;
  let upstream: FakeUpstream;

  before(async () => {
    upstream = await startFakeUpstream();
    const config = readStandaloneConfig({
      SERVICE_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
    });
    const handle = await startStandalone(config, context);
    url = handle.url;
    token = (
      await seedProject(handle.db.prisma, handle.secretKey, {
        projectSlug: "fuzz",
        modelId: "fuzz-model",
        provider: "custom",
        baseUrl: upstream.baseUrl,
      })
    ).token;
  });

  after(async () => {
    await context.shutdown.run("test done");
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (path: string, body: string | Buffer, contentType = "application/json") =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body,
    });

  async function assertRefused(
    response: Response,
    path: string,
    what: string,
    status?: number,
  ): Promise<void> {
    const text = await response.text();
    assert.ok(
      response.status >= 400 && response.status < 500,
      `${what} on ${path}: got ${response.status} ${text.slice(0, 200)}`,
    );
    if (status) assert.equal(response.status, status, `${what} on ${path}`);
    const body = JSON.parse(text) as {
      type?: string;
      error: { message: string; type: string; code: string };
    };
    assert.equal(typeof body.error.message, "string", `${what} on ${path}: a message`);
    assert.ok(body.error.message.length > 0 && body.error.message.length < 2000);
    assert.equal(typeof body.error.code, "string");
    if (path.startsWith("/v1/messages"))
      assert.equal(body.type, "error", `${what} on ${path}: messages envelope`);
  }

  const corpus = readdirSync(CORPUS_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort();

  it("has a corpus", () => assert.ok(corpus.length >= 40));

  for (const name of corpus) {
    it(`refuses ${name} on every endpoint`, async () => {
      const body = readFileSync(join(CORPUS_DIR, name));
      const before = upstream.requests.length;
      for (const path of ENDPOINTS) await assertRefused(await post(path, body), path, name);
      assert.equal(upstream.requests.length, before, "nothing reached the upstream");
    });
  }

  it("answers 413 to a body over the limit", async () => {
    const huge = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "x".repeat(BODY_LIMIT) }],
    });
    for (const path of ENDPOINTS) await assertRefused(await post(path, huge), path, "oversized", 413);
  });

  it("answers 4xx to JSON nested 100,000 deep", async () => {
    const deep = `{"model":"m","messages":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    for (const path of ENDPOINTS) await assertRefused(await post(path, deep), path, "deeply nested");
  });

  it("answers 415 to a body that is not JSON", async () => {
    for (const path of ENDPOINTS)
      await assertRefused(
        await post(path, "model=m", "application/x-www-form-urlencoded"),
        path,
        "form body",
        415,
      );
  });

  it("never answers 5xx to randomly mutated valid bodies", async () => {
    const random = seededRandom(20261122);
    const valid: Record<string, Record<string, unknown>> = {
      "/v1/chat/completions": { model: "m", max_tokens: 20, messages: [{ role: "user", content: "hi" }] },
      "/v1/responses": { model: "m", max_output_tokens: 20, input: [{ role: "user", content: "hi" }] },
      "/v1/messages": { model: "m", max_tokens: 20, messages: [{ role: "user", content: "hi" }] },
      "/v1/messages/count_tokens": { model: "m", messages: [{ role: "user", content: "hi" }] },
    };
    const statuses = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      const path = ENDPOINTS[i % ENDPOINTS.length]!;
      const body = mutate(structuredClone(valid[path]!), random);
      const response = await post(path, JSON.stringify(body));
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(
        response.status < 500,
        `mutation ${i} on ${path} got ${response.status}: ${JSON.stringify(body).slice(0, 300)}`,
      );
    }
    // Both outcomes occur, so the mutations exercise the validation and the happy path alike.
    assert.ok(
      (statuses.get(200) ?? 0) > 0 && [...statuses.keys()].some((s) => s >= 400),
      JSON.stringify([...statuses]),
    );
  });

  it("is still healthy afterwards", async () => {
    assert.equal((await fetch(`${url}/health`)).status, 200);
  });
});

const HOSTILE_VALUES: unknown[] = [
  null,
  -1,
  0,
  1.5,
  1e308,
  "",
  "x".repeat(1000),
  true,
  [],
  {},
  [null],
  [{}],
  { type: "text" },
  { role: "user" },
  [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:;base64,@@" } }] }],
  [{ role: "tool", content: "x" }],
  [{ role: "assistant", content: null }],
];
const KEYS = [
  "model",
  "messages",
  "input",
  "max_tokens",
  "max_output_tokens",
  "stream",
  "tools",
  "tool_choice",
  "system",
  "temperature",
  "response_format",
  "stop",
  "user",
  "metadata",
  "previous_response_id",
  "text",
  "instructions",
];

/** Sets one to three keys (top level or inside the first message) to hostile values. */
function mutate(body: Record<string, unknown>, random: () => number): Record<string, unknown> {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const changes = 1 + Math.floor(random() * 3);
  for (let i = 0; i < changes; i++) {
    const value = structuredClone(pick(HOSTILE_VALUES));
    const list = (body.messages ?? body.input) as unknown;
    if (random() < 0.3 && Array.isArray(list) && typeof list[0] === "object" && list[0] !== null)
      (list[0] as Record<string, unknown>)[pick(["role", "content", "tool_calls", "name", "type"])] = value;
    else body[pick(KEYS)] = value;
  }
  return body;
}
