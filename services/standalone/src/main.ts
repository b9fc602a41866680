import { bootService } from "@gw/lifecycle";
import { readStandaloneConfig } from "./config.js";

const bootStarted = performance.now();

await bootService({
  name: "standalone",
  config: readStandaloneConfig(),
  loadStart: async () => {
    const { startStandalone } = await import("./start-standalone.js");
    return async (config, context) => {
      const { url, dataDir } = await startStandalone(config, context);
      const shown = url.replace("://0.0.0.0", "://localhost").replace("://[::]", "://localhost");
      context.logger.info(
        { url, dataDir, startupMs: Math.round(performance.now() - bootStarted) },
        "standalone ready",
      );
      // Printed plainly as well: this is the first thing a person trying the gateway reads.
      process.stdout.write(
        `\n  LLM gateway ready\n  health:    ${shown}/health\n  dashboard: ${shown}/dashboard/\n  data:      ${dataDir}\n\n`,
      );
    };
  },
});
