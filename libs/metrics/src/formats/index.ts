export * from "./datadog.js";
export * from "./influx-line.js";
export * from "./otlp.js";
export * from "./prometheus-text.js";
export * from "./remote-write.js";
export type { PushRequest } from "./request.js";
export * from "./webhook.js";
