import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import pino from "pino";
import { REDACTED_PATHS } from "./index.js";

describe("logger redaction", () => {
  it("never writes credentials", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, sink);
    logger.info(
      {
        req: { headers: { authorization: "Bearer sk-rt-secret", "x-api-key": "sk-rt-other" } },
        apiKey: "sk-up",
      },
      "request",
    );
    const line = lines.join("");
    assert.ok(!line.includes("sk-rt-secret"));
    assert.ok(!line.includes("sk-rt-other"));
    assert.ok(!line.includes("sk-up"));
    assert.ok(line.includes("[redacted]"));
  });
});
