import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { BaseEnv, InfraEnv } from "./fragments.js";
import { ConfigError, loadConfig } from "./load-config.js";

describe("loadConfig", () => {
  const Schema = BaseEnv.extend(InfraEnv.shape);

  it("applies defaults and treats empty strings as unset", () => {
    const config = loadConfig(Schema, { DATABASE_URL: "", LOG_LEVEL: "debug" });
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.LOG_LEVEL, "debug");
    assert.equal(config.SERVICE_DATA_DIR, "./data");
    assert.equal(config.SHUTDOWN_TIMEOUT_MS, 10_000);
  });

  it("rejects invalid values with every problem named", () => {
    assert.throws(
      () => loadConfig(Schema, { LOG_LEVEL: "loud", SHUTDOWN_TIMEOUT_MS: "soon" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes("LOG_LEVEL") &&
        error.message.includes("SHUTDOWN_TIMEOUT_MS"),
    );
  });

  it("coerces numbers", () => {
    const config = loadConfig(z.object({ N: z.coerce.number() }), { N: "42" });
    assert.equal(config.N, 42);
  });
});
