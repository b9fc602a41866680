export * from "./formats/index.js";
export * from "./integration-store.js";
export * from "./integration-types.js";
export * from "./latency.js";
export { PUSH_TIMEOUT_MS, type PushOptions, type PushResult, redact, sendPush } from "./push.js";
export * from "./samples.js";
export * from "./state/index.js";
