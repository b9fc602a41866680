import { bootService } from "@gw/lifecycle";
import { readAdminApiConfig } from "./config.js";

await bootService({
  name: "admin-api",
  config: readAdminApiConfig(),
  loadStart: async () => (await import("./run.js")).startAdminApi,
});
