export { type BootConfig, bootService, type ServiceContext } from "./boot.js";
export { createShutdown, type Shutdown, type ShutdownLogger, type ShutdownOptions } from "./shutdown.js";
