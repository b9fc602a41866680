export * from "./latency.js";
