/**
 * The rest of the proxy surface, beside the format x kind matrix, written once and run in both
 * modes; one file per concern.
 */
export * from "./surface-auth-checks.js";
export * from "./surface-passthrough-checks.js";
export * from "./surface-stream-checks.js";
