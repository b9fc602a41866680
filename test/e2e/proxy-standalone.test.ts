import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PROVIDER_KINDS, type ProviderKind } from "@gw/llm";
import { readStandaloneConfig, type StandaloneHandle, startStandalone } from "@gw/service-standalone";
import { startFakeUpstream } from "@gw/testing";
import { type KindTarget, MATRIX_CHECKS, type MatrixGateway, seedKinds } from "../support/proxy-matrix.js";
import * as surface from "../support/proxy-surface-checks.js";
import { testServiceContext } from "../support/silent-context.js";

// The proxy surface in standalone mode (`npm start`): one process, PGlite, in-process bus.
describe("proxy surface, standalone mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-proxy-standalone-"));
  const context = testServiceContext("standalone");
  let handle: StandaloneHandle;
  let gateway: MatrixGateway;
  let targets: Map<ProviderKind, KindTarget>;
  const target = (kind: ProviderKind) => targets.get(kind)!;

  before(async () => {
    const upstream = await startFakeUpstream();
    const config = readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
    handle = await startStandalone(config, context);
    gateway = { url: handle.url, prisma: handle.db.prisma, secretKey: handle.secretKey, upstream };
    targets = await seedKinds(gateway);
  });

  after(async () => {
    await context.shutdown.run("test done");
    await gateway?.upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const [name, check] of Object.entries(MATRIX_CHECKS)) {
    for (const kind of PROVIDER_KINDS) it(`${name} <- ${kind}`, () => check(gateway, target(kind)));
  }

  it("authenticates with Bearer or x-api-key, Bearer first; 401 in each format's envelope", () =>
    surface.checkAuthentication(gateway, target("openai")));
  it("emits auth.token_invalid for an unknown token", () =>
    surface.checkTokenInvalidEvent(gateway, handle.bus));
  it("serves /projects/{slug}/v1/* for the token's projects only", () =>
    surface.checkProjectScopedPaths(gateway, target("openai"), target("gemini")));
  it("lists the project's models for both SDKs", () => surface.checkModelsList(gateway, target("mistral")));
  it("counts tokens without calling upstream", () => surface.checkCountTokens(gateway, target("anthropic")));
  it("sends the trace event first, honours x-service-trace and x-service-no-trace", () =>
    surface.checkTraceEventAndHeaders(gateway, target("cohere")));
  it("records the conversation id and end user", () =>
    surface.checkSessionAndEndUserRecorded(gateway, target("gemini")));
  it("aborts upstream when the client disconnects and bills what was produced", () =>
    surface.checkClientDisconnect(gateway, target("openai")));
  it("aborts a translated stream too (messages client, gemini upstream)", () =>
    surface.checkClientDisconnect(gateway, target("gemini"), "/v1/messages"));
  it("ends a stream cut mid-way with the format's error event and records it (openai upstream)", () =>
    surface.checkStreamCutMidway(gateway, target("openai")));
  it("passes unhandled paths through with the credential swapped", () =>
    surface.checkPassThrough(gateway, target("openai"), target("anthropic")));
  it("answers 502 no_upstream and upstream_error on pass-through", () =>
    surface.checkPassThroughErrors(gateway));
  it("never proxies reserved paths", () => surface.checkReservedPaths(gateway, target("openai")));
  it("answers 504 in the messages envelope on a provider timeout", () =>
    surface.checkMessagesTimeout(gateway, target("ollama")));
});
