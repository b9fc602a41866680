import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RouteRequest, RouteResponse, RoutingServiceService } from "@gw/proto";
import { context, propagation, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { LazyCallContext } from "../src/call-context.js";
import {
  type AsyncClient,
  type AsyncHandlers,
  createGrpcClient,
  createGrpcServer,
  type GrpcClientHandle,
  type GrpcServer,
  INTERNAL_ERROR_MESSAGE,
  inProcessClient,
  isRetryableRpcError,
  RpcError,
  type RpcLogger,
  rpcError,
  status,
} from "../src/index.js";

// Without a global context manager `context.with` is a no-op; without a propagator nothing is injected.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

type Routing = typeof RoutingServiceService;
const ROUTE_METHOD = "gateway.routing.v1.RoutingService/Route";
const SECRET = "postgres://admin:hunter2@db";

/** Records log calls so tests can check what the server side logged. */
function recordingLogger() {
  const entries: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      entries.push({ level, obj: obj as Record<string, unknown>, msg });
    };
  const logger: RpcLogger = { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") };
  return { logger, entries };
}

/** What the slow handler reports to the test: that it started, and the reason its signal aborted. */
let slowProbe = createSlowProbe();
function createSlowProbe() {
  let markStarted!: () => void;
  let markAborted!: (reason: unknown) => void;
  return {
    started: new Promise<void>((resolve) => {
      markStarted = resolve;
    }),
    aborted: new Promise<unknown>((resolve) => {
      markAborted = resolve;
    }),
    markStarted: () => markStarted(),
    markAborted: (reason: unknown) => markAborted(reason),
  };
}

/** Behaviour is chosen by `projectId`, so one handler set covers every scenario. */
const routingHandlers: AsyncHandlers<Routing> = {
  reportOutcomes: async () => ({}),
  async route(request, ctx) {
    switch (request.projectId) {
      case "not-found":
        throw rpcError(status.NOT_FOUND, `project ${request.tokenId} not found`);
      case "crash":
        throw new Error(`cannot connect to ${SECRET}`);
      case "slow": {
        const probe = slowProbe;
        ctx.signal.addEventListener("abort", () => probe.markAborted(ctx.signal.reason), { once: true });
        probe.markStarted();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        ctx.signal.throwIfAborted();
        throw new Error("unreachable");
      }
      case "trace":
        return RouteResponse.fromPartial({
          policies: [trace.getSpanContext(context.active())?.traceId ?? ""],
        });
      default:
        return RouteResponse.fromPartial({
          candidates: [{ modelId: `model-for-${request.tokenId}`, provider: "openai", priced: true }],
          policies: [String(ctx.deadline !== undefined)],
        });
    }
  },
};

function routeRequest(projectId: string, tokenId = "t1"): RouteRequest {
  return { ...emptyRequest, projectId, tokenId };
}
const emptyRequest: RouteRequest = {
  projectId: "",
  tokenId: "",
  estimatedInputTokens: 1200,
  requiredCapabilities: ["vision"],
  maxTokens: 0,
  conversationId: "",
  requestedModel: "gpt-x",
  traceId: "",
  promptExcerpt: "",
};

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => assert.fail("expected the call to fail"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RpcError, `expected RpcError, got ${String(error)}`);
  return error;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The contract both transports must honour; written once, run against each. */
function clientContract(
  getClient: () => AsyncClient<Routing>,
  getLog: () => ReturnType<typeof recordingLogger>,
) {
  it("round trip returns the handler's response", async () => {
    const response = await getClient().route(routeRequest("ok", "abc"));
    assert.equal(response.candidates[0]?.modelId, "model-for-abc");
    assert.equal(response.candidates[0]?.priced, true);
    assert.deepEqual(response.policies, ["true"], "handler sees a deadline (the default one)");
  });

  it("an RpcError keeps its code and message", async () => {
    const error = await rejection(getClient().route(routeRequest("not-found", "p9")));
    assert.equal(error.code, status.NOT_FOUND);
    assert.equal(error.message, "project p9 not found");
    assert.equal(error.details, "project p9 not found");
    assert.equal(isRetryableRpcError(error), false);
  });

  it("a plain Error becomes INTERNAL without leaking its message, and is logged with the method", async () => {
    const error = await rejection(getClient().route(routeRequest("crash")));
    assert.equal(error.code, status.INTERNAL);
    assert.equal(error.message, INTERNAL_ERROR_MESSAGE);
    assert.ok(!JSON.stringify({ ...error, message: error.message }).includes("hunter2"));
    assert.ok(!String(error.stack).includes("hunter2"));
    const logged = getLog().entries.find((e) => e.level === "error" && String(e.obj.err).includes("hunter2"));
    assert.ok(logged, "original error logged server-side");
    assert.equal(logged.obj.method, ROUTE_METHOD);
  });

  it("deadline exceeded fails in time and aborts the handler's signal", async () => {
    slowProbe = createSlowProbe();
    const started = Date.now();
    const error = await rejection(getClient().route(routeRequest("slow"), { deadlineMs: 100 }));
    const elapsed = Date.now() - started;
    assert.equal(error.code, status.DEADLINE_EXCEEDED);
    assert.ok(isRetryableRpcError(error));
    assert.ok(elapsed >= 90 && elapsed < 100 + 400, `failed after ${elapsed} ms`);
    const reason = await withTimeout(slowProbe.aborted, 1000, "handler abort");
    assert.ok(reason instanceof RpcError);
    assert.equal(reason.code, status.DEADLINE_EXCEEDED);
  });

  it("client abort cancels the call and the handler sees signal.aborted", async () => {
    slowProbe = createSlowProbe();
    const controller = new AbortController();
    const pending = getClient().route(routeRequest("slow"), { signal: controller.signal, deadlineMs: 5000 });
    await withTimeout(slowProbe.started, 1000, "handler start");
    controller.abort();
    const error = await rejection(pending);
    assert.equal(error.code, status.CANCELLED);
    const reason = await withTimeout(slowProbe.aborted, 1000, "handler abort");
    assert.ok(reason instanceof RpcError);
    assert.equal(reason.code, status.CANCELLED);
  });

  it("an already aborted signal fails without calling", async () => {
    const error = await rejection(getClient().route(routeRequest("ok"), { signal: AbortSignal.abort() }));
    assert.equal(error.code, status.CANCELLED);
  });

  it("propagates the caller's trace context to the handler", async () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const active = trace.setSpanContext(context.active(), {
      traceId,
      spanId: "b7ad6b7169203331",
      traceFlags: TraceFlags.SAMPLED,
    });
    const response = await context.with(active, () => getClient().route(routeRequest("trace")));
    assert.deepEqual(response.policies, [traceId]);

    const untraced = await getClient().route(routeRequest("trace"));
    assert.notEqual(untraced.policies[0], traceId, "no trace leaks into an untraced call");
  });
}

describe("grpc over tcp loopback", () => {
  const log = recordingLogger();
  let server: GrpcServer;
  let remote: GrpcClientHandle<Routing>;
  before(async () => {
    server = createGrpcServer({ logger: log.logger }).add(RoutingServiceService, routingHandlers);
    const { port } = await server.listen("127.0.0.1:0");
    assert.ok(port > 0);
    remote = createGrpcClient(RoutingServiceService, `127.0.0.1:${port}`);
  });
  after(async () => {
    remote.close();
    await server.shutdown(1000);
  });
  clientContract(
    () => remote.client,
    () => log,
  );
});

describe("in-process client", () => {
  const log = recordingLogger();
  const client = inProcessClient(RoutingServiceService, routingHandlers, { logger: log.logger });
  clientContract(
    () => client,
    () => log,
  );
});

describe("grpc over a unix socket", () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), "gw-rpc-"));
  });
  after(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("listens, serves a round trip and shuts down", async () => {
    const socketPath = join(directory, "routing.sock");
    const server = createGrpcServer().add(RoutingServiceService, routingHandlers);
    const { port } = await server.listen(`unix:${socketPath}`);
    assert.equal(port, 0);
    assert.ok(existsSync(socketPath));
    const remote = createGrpcClient(RoutingServiceService, `unix:${socketPath}`);
    const response = await remote.client.route(routeRequest("ok", "sock"));
    assert.equal(response.candidates[0]?.modelId, "model-for-sock");
    remote.close();
    await server.shutdown(1000);
    assert.ok(!existsSync(socketPath), "socket file removed on shutdown");
  });

  it("replaces a stale socket file left by a killed process", async () => {
    const socketPath = join(directory, "stale.sock");
    const listenScript = `require("node:net").createServer().listen(${JSON.stringify(socketPath)}, () => console.log("up"))`;
    const child = spawn(process.execPath, ["-e", listenScript], { stdio: ["ignore", "pipe", "inherit"] });
    await withTimeout(once(child.stdout, "data"), 5000, "child listening");
    child.kill("SIGKILL");
    await once(child, "exit");
    assert.ok(existsSync(socketPath), "the killed process left its socket file behind");

    const server = createGrpcServer().add(RoutingServiceService, routingHandlers);
    await server.listen(`unix:${socketPath}`);
    const remote = createGrpcClient(RoutingServiceService, `unix:${socketPath}`);
    assert.equal((await remote.client.route(routeRequest("ok", "x"))).candidates.length, 1);
    remote.close();
    await server.shutdown(1000);
  });
});

describe("LazyCallContext", () => {
  it("a signal first read after abort is already aborted with the reason", () => {
    const callContext = new LazyCallContext(undefined, {});
    const reason = rpcError(status.DEADLINE_EXCEEDED, "Deadline exceeded");
    callContext.abort(reason);
    assert.equal(callContext.signal.aborted, true);
    assert.equal(callContext.signal.reason, reason);
  });

  it("a signal read before abort is aborted by it, once", () => {
    const callContext = new LazyCallContext(Date.now() + 1000, {});
    const signal = callContext.signal;
    let events = 0;
    signal.addEventListener("abort", () => events++);
    callContext.abort(rpcError(status.CANCELLED, "Cancelled"));
    callContext.abort(rpcError(status.DEADLINE_EXCEEDED, "late"));
    assert.equal(events, 1);
    assert.equal((signal.reason as RpcError).code, status.CANCELLED);
    assert.equal(callContext.signal, signal);
  });
});

describe("grpc server lifecycle", () => {
  it("rejects a service with a missing handler at registration", () => {
    const server = createGrpcServer();
    assert.throws(() => server.add(RoutingServiceService, {} as AsyncHandlers<Routing>), /no handler for/);
  });

  it("forces shutdown after the timeout, aborting in-flight handlers", async () => {
    slowProbe = createSlowProbe();
    const server = createGrpcServer().add(RoutingServiceService, routingHandlers);
    const { port } = await server.listen("127.0.0.1:0");
    const remote = createGrpcClient(RoutingServiceService, `127.0.0.1:${port}`);
    const pending = remote.client.route(routeRequest("slow"), { deadlineMs: 10_000 });
    await withTimeout(slowProbe.started, 1000, "handler start");
    const started = Date.now();
    await server.shutdown(100);
    assert.ok(Date.now() - started < 1000);
    const error = await rejection(pending);
    assert.ok([status.UNAVAILABLE, status.CANCELLED, status.INTERNAL].includes(error.code), error.codeName);
    await withTimeout(slowProbe.aborted, 1000, "handler abort");
    remote.close();
  });
});
