export { readStandaloneConfig, StandaloneConfig } from "./config.js";
export { type SeedOptions, type SeedResult, seedProject } from "./seed.js";
export { type StandaloneHandle, startStandalone } from "./start-standalone.js";
