/**
 * `npm run seed -- --base-url http://127.0.0.1:8080/v1 [--provider custom|openai|anthropic|...] [--model demo]
 *   [--upstream-model gpt-4o-mini] [--project demo] [--api-key sk-...]`
 * Creates a project, a model and a token in the database the gateway uses (DATABASE_URL, or the
 * standalone data directory: run it while standalone is stopped, PGlite has one writer) and prints
 * the token once.
 */
import { parseArgs } from "node:util";
import { PROVIDER_KINDS } from "@gw/llm";
import { createLogger } from "@gw/logger";
import { readStandaloneConfig } from "./config.js";
import { openInfrastructure } from "./infrastructure.js";
import { seedProject } from "./seed.js";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    provider: { type: "string", default: "custom" },
    model: { type: "string", default: "demo-model" },
    "upstream-model": { type: "string" },
    project: { type: "string", default: "demo" },
    "api-key": { type: "string" },
  },
});
if (!(PROVIDER_KINDS as readonly string[]).includes(values.provider)) {
  process.stderr.write(`--provider must be one of ${PROVIDER_KINDS.join(", ")}\n`);
  process.exit(2);
}
if (values.provider === "custom" && !values["base-url"]) {
  process.stderr.write(
    "--base-url is required for provider custom (an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1)\n",
  );
  process.exit(2);
}
const config = readStandaloneConfig();
const logger = createLogger({ name: "seed", level: "warn" });
const infra = await openInfrastructure(config, logger);
try {
  const result = await seedProject(infra.db.prisma, infra.secretKey, {
    projectSlug: values.project,
    modelId: values.model,
    provider: values.provider,
    baseUrl: values["base-url"],
    upstreamModel: values["upstream-model"],
    apiKey: values["api-key"],
  });
  process.stdout.write(
    `project ${values.project} (${result.projectId}), model ${result.modelId}\n` +
      `token (shown once): ${result.token}\n`,
  );
} finally {
  await infra.bus.close();
  await infra.counters.close();
  await infra.db.close();
}
