export { BaseEnv, BudgetEnv, GrpcEnv, HttpEnv, InfraEnv, LogLevel, SecretEnv } from "./fragments.js";
export { ConfigError, loadConfig } from "./load-config.js";
export { requireDistributedUrls } from "./require-urls.js";
export { SERVICE_VERSION } from "./version.js";
