export { createOutbox, type Outbox } from "@gw/accounting";
export { buildIngressApp } from "./app.js";
export { IngressConfig } from "./config.js";
export { type IngressDeps, ingressDeps } from "./deps.js";
export { createUpstreamDispatcher } from "./proxy/upstream-client.js";
export { serveIngress } from "./serve.js";
