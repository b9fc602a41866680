// Micro-benchmark of one unary call per transport (not run by the tests):
//   node --import tsx libs/rpc/test/rpc.bench.ts
// tsx compiles with esbuild `keepNames`, which wraps every closure in a defineProperty call and adds
// ~1 µs to the in-process numbers; for production-like numbers run it bundled like the services:
//   npx esbuild libs/rpc/test/rpc.bench.ts --bundle --platform=node --format=esm --target=node20 \
//     --external:@grpc/grpc-js '--external:@opentelemetry/*' '--external:@bufbuild/*' \
//     --outfile=libs/rpc/.bench/rpc.bench.mjs && node libs/rpc/.bench/rpc.bench.mjs; rm -r libs/rpc/.bench
// 2000 sequential calls after a warm-up; reports p50/p99/mean latency. A W3C propagator and the
// AsyncLocalStorage context manager are registered, as in production, so trace injection is measured.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { credentials, Server, ServerCredentials } from "@grpc/grpc-js";
import {
  type RouteRequest,
  RouteResponse,
  RoutingServiceClient,
  type RoutingServiceServer,
  RoutingServiceService,
} from "@gw/proto";
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  type AsyncClient,
  type AsyncHandlers,
  createGrpcClient,
  createGrpcServer,
  inProcessClient,
} from "../src/index.js";

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

type Routing = typeof RoutingServiceService;
const CALLS = 2000;
const WARMUP = 300;

const request: RouteRequest = {
  projectId: "proj_01",
  tokenId: "tok_01",
  estimatedInputTokens: 1500,
  requiredCapabilities: ["functionCalling"],
  maxTokens: 1024,
  conversationId: "conv_01",
  requestedModel: "gpt-4o",
  traceId: "0af7651916cd43dd8448eb211c80319c",
  promptExcerpt: "",
};

// A realistic-size response: three candidates and a short decision trace.
const response = RouteResponse.fromPartial({
  candidates: ["a", "b", "c"].map((m) => ({
    modelId: m,
    provider: "openai",
    upstreamModel: m,
    priced: true,
  })),
  trace: [
    { stage: "policy", name: "cheapest", outcome: "selected", reason: "lowest cost", detailsJson: "{}" },
  ],
  policies: ["cheapest"],
});
const handlers: AsyncHandlers<Routing> = { route: async () => response, reportOutcomes: async () => ({}) };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(label: string, client: Pick<AsyncClient<Routing>, "route">): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await client.route(request);
  const samples: number[] = new Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await client.route(request);
    samples[i] = (performance.now() - start) * 1000;
  }
  const mean = samples.reduce((a, b) => a + b, 0) / CALLS;
  samples.sort((a, b) => a - b);
  const fmt = (us: number) => `${us.toFixed(1).padStart(8)} µs`;
  console.log(
    `${label.padEnd(16)} p50 ${fmt(percentile(samples, 50))}  p99 ${fmt(percentile(samples, 99))}  mean ${fmt(mean)}`,
  );
}

const directory = await mkdtemp(join(tmpdir(), "gw-rpc-bench-"));
const server = createGrpcServer().add(RoutingServiceService, handlers);
const { port } = await server.listen("127.0.0.1:0");
const socketAddress = `unix:${join(directory, "routing.sock")}`;
await server.listen(socketAddress);

// Baseline: bare grpc-js server and generated callback client, without this lib's wrapping.
const rawServer = new Server();
const rawImplementation: RoutingServiceServer = {
  route: (_call, callback) => callback(null, response),
  reportOutcomes: (_call, callback) => callback(null, {}),
};
rawServer.addService(RoutingServiceService, rawImplementation);
const rawPort = await new Promise<number>((resolve, reject) =>
  rawServer.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) =>
    e ? reject(e) : resolve(p),
  ),
);
const rawClient = new RoutingServiceClient(`127.0.0.1:${rawPort}`, credentials.createInsecure());
const rawRoute = (req: RouteRequest) =>
  new Promise<RouteResponse>((resolve, reject) =>
    rawClient.route(req, (e, r) => (e ? reject(e) : resolve(r))),
  );

const tcp = createGrpcClient(RoutingServiceService, `127.0.0.1:${port}`);
const unix = createGrpcClient(RoutingServiceService, socketAddress);
console.log(`${CALLS} sequential unary calls (after ${WARMUP} warm-up), node ${process.version}`);
await measure("raw grpc-js tcp", { route: rawRoute });
await measure("tcp loopback", tcp.client);
await measure("unix socket", unix.client);
await measure("in-process", inProcessClient(RoutingServiceService, handlers));
// Baseline: the handler awaited directly, without deadline/abort/error mapping.
const bareContext = { signal: new AbortController().signal, metadata: {} };
await measure("direct handler", { route: (req: RouteRequest) => handlers.route(req, bareContext) });

rawClient.close();
rawServer.forceShutdown();
tcp.close();
unix.close();
await server.shutdown(1000);
await rm(directory, { recursive: true, force: true });
