import { bootService } from "@gw/lifecycle";
import { readBudgetConfig } from "./config.js";

await bootService({
  name: "budget",
  config: readBudgetConfig(),
  loadStart: async () => (await import("./run.js")).startBudget,
});
