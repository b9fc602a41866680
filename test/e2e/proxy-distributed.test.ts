import { after, before, describe, it } from "node:test";
import { type Bus, createBus } from "@gw/bus";
import { PROVIDER_KINDS, type ProviderKind } from "@gw/llm";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";
import { type KindTarget, MATRIX_CHECKS, type MatrixGateway, seedKinds } from "../support/proxy-matrix.js";
import * as surface from "../support/proxy-surface-checks.js";

const env = distributedEnv();

// The same proxy-surface checks as the standalone suite, with every service its own process.
describe("proxy surface, distributed mode", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let upstream: FakeUpstream;
  let services: DistributedGateway;
  let gateway: MatrixGateway;
  let targets: Map<ProviderKind, KindTarget>;
  let bus: Bus;
  const target = (kind: ProviderKind) => targets.get(kind)!;

  before(async () => {
    upstream = await startFakeUpstream();
    services = await startDistributedGateway(async (db, secretKey) => {
      targets = await seedKinds({ url: "", prisma: db.prisma, secretKey, upstream });
    });
    gateway = { url: services.url, prisma: services.db.prisma, secretKey: services.secretKey, upstream };
    bus = await createBus({
      natsUrl: env.NATS_URL!,
      namespace: services.busNamespace,
      name: "proxy-distributed-test",
    });
  });

  after(async () => {
    await bus?.close();
    await services?.stop();
    await upstream?.close();
  });

  for (const [name, check] of Object.entries(MATRIX_CHECKS)) {
    for (const kind of PROVIDER_KINDS) it(`${name} <- ${kind}`, () => check(gateway, target(kind)));
  }

  it("authenticates with Bearer or x-api-key, Bearer first; 401 in each format's envelope", () =>
    surface.checkAuthentication(gateway, target("xai")));
  it("emits auth.token_invalid for an unknown token", () => surface.checkTokenInvalidEvent(gateway, bus));
  it("serves /projects/{slug}/v1/* for the token's projects only", () =>
    surface.checkProjectScopedPaths(gateway, target("anthropic"), target("ollama")));
  it("lists the project's models for both SDKs", () => surface.checkModelsList(gateway, target("custom")));
  it("counts tokens without calling upstream", () => surface.checkCountTokens(gateway, target("gemini")));
  it("sends the trace event first, honours x-service-trace and x-service-no-trace", () =>
    surface.checkTraceEventAndHeaders(gateway, target("anthropic")));
  it("records the conversation id and end user", () =>
    surface.checkSessionAndEndUserRecorded(gateway, target("openai")));
  it("aborts upstream when the client disconnects and bills what was produced", () =>
    surface.checkClientDisconnect(gateway, target("xai")));
  it("aborts a translated stream too (messages client, cohere upstream)", () =>
    surface.checkClientDisconnect(gateway, target("cohere"), "/v1/messages"));
  it("ends a stream cut mid-way with the format's error event and records it (gemini upstream)", () =>
    surface.checkStreamCutMidway(gateway, target("gemini")));
  it("passes unhandled paths through with the credential swapped", () =>
    surface.checkPassThrough(gateway, target("openai"), target("anthropic")));
  it("answers 502 no_upstream and upstream_error on pass-through", () =>
    surface.checkPassThroughErrors(gateway));
  it("never proxies reserved paths", () => surface.checkReservedPaths(gateway, target("gemini")));
  it("answers 504 in the messages envelope on a provider timeout", () =>
    surface.checkMessagesTimeout(gateway, target("anthropic")));
});
