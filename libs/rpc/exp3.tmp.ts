import { performance } from "node:perf_hooks";
import { RouteRequest, RouteResponse, RoutingServiceService } from "@gw/proto";
import { inProcessClient } from "./src/index.js";

const response = RouteResponse.fromPartial({ policies: ["x"] });
const handlers = { route: async () => response };
const req = RouteRequest.fromPartial({ projectId: "p" });
async function run(label: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 5000; i++) await fn();
  const N = 50000;
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(label.padEnd(20), (((performance.now() - t) * 1000) / N).toFixed(2), "µs/call");
}
const c = inProcessClient(RoutingServiceService, handlers);
const ci = inProcessClient(RoutingServiceService, handlers, { defaultDeadlineMs: Infinity });
const ctx = { signal: new AbortController().signal, metadata: {} };
for (let k = 0; k < 2; k++) {
  await run("direct", () => handlers.route());
  await run("in-process", () => c.route(req));
  await run("in-process no dl", () => ci.route(req));
  await run("in-process signal", () => c.route(req, { signal: ctx.signal }));
}
