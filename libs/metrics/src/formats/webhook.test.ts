import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { fixtureSnapshot } from "./snapshot-fixture.js";
import { webhookBody, webhookRequest, webhookSignature } from "./webhook.js";

describe("metrics formats: webhook", () => {
  it("the body lists every sample with its type and labels, timestamps in ISO 8601", () => {
    const body = webhookBody(fixtureSnapshot());
    assert.equal(body.timestamp, "2026-11-25T03:30:00.250Z");
    assert.equal(body.startedAt, "2026-11-01T00:00:00.000Z");
    assert.equal(body.metrics.length, fixtureSnapshot().samples.length);
    assert.deepEqual(body.metrics[0], {
      name: "service_requests_total",
      type: "counter",
      labels: { project: "acme", model: "gpt-4o" },
      value: 10,
    });
  });

  it("signs the exact body with HMAC-SHA256 when a secret is set; user headers cannot replace it", () => {
    const request = webhookRequest(
      {
        url: "https://hooks.example/m",
        secret: "whsec",
        headers: { "X-Service-Signature": "forged", "X-Team": "ops" },
      },
      fixtureSnapshot(),
    );
    const expected = createHmac("sha256", "whsec")
      .update(request.body as string)
      .digest("hex");
    assert.equal(request.headers["x-service-signature"], `sha256=${expected}`);
    assert.equal(webhookSignature("whsec", request.body as string), `sha256=${expected}`);
    assert.equal(request.headers["x-team"], "ops");
    assert.equal(request.headers["content-type"], "application/json");
    assert.ok(request.secrets.includes("whsec"));
  });

  it("no secret, no signature header", () => {
    const request = webhookRequest({ url: "https://hooks.example/m", headers: {} }, fixtureSnapshot());
    assert.equal(request.headers["x-service-signature"], undefined);
  });
});
