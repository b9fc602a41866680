import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bearerTokenMatches as bearerMatches } from "@gw/metrics";
import { AdminError } from "../errors.js";
import { mergeSettings } from "./merge.js";
import { parseCreate, parsePatch } from "./schemas.js";
import { integrationView } from "./view.js";

const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AdminError ? `${error.status} ${error.message}` : String(error);
  }
  return "no error";
};

describe("integration bodies", () => {
  it("checks type first, then the strict schema of the type", () => {
    assert.match(
      status(() => parseCreate({})),
      /^400 type: is required/,
    );
    assert.match(
      status(() => parseCreate({ type: "x" })),
      /^400 type: must be one of/,
    );
    assert.match(
      status(() => parseCreate({ type: "influxdb", url: "http://i", token: "t", org: "o" })),
      /^400 bucket: is required/,
    );
    assert.match(
      status(() => parseCreate({ type: "prometheus", extra: 1 })),
      /extra/,
    );
    assert.deepEqual(parseCreate({ type: "prometheus", authToken: null }), { type: "prometheus" });
  });

  it("refuses a type change, accepts the same type", () => {
    assert.match(
      status(() => parsePatch("grafana", { type: "otel" })),
      /^400 type: cannot change/,
    );
    assert.deepEqual(parsePatch("grafana", { type: "grafana", username: "u" }), { username: "u" });
  });
});

describe("PATCH merge", () => {
  const current = { url: "http://a", secret: "s1", headers: { Authorization: "Bearer x", "X-Team": "a" } };

  it("keeps secrets given as null or empty and replaces them when given", () => {
    assert.equal(mergeSettings(current, { secret: null }).secret, "s1");
    assert.equal(mergeSettings(current, { secret: "" }).secret, "s1");
    assert.equal(mergeSettings(current, { secret: "s2" }).secret, "s2");
  });

  it("treats headers as the new set, null keeping the stored value case-insensitively", () => {
    assert.deepEqual(mergeSettings(current, { headers: { authorization: null } }).headers, {
      authorization: "Bearer x",
    });
    assert.match(
      status(() => mergeSettings(current, { headers: { "X-Other": null } })),
      /^400 headers\.X-Other/,
    );
  });
});

describe("pull endpoint bearer check", () => {
  it("accepts any configured token, nothing else", () => {
    assert.equal(bearerMatches("Bearer b", ["a", "b"]), true);
    assert.equal(bearerMatches("bearer a", ["a"]), true);
    assert.equal(bearerMatches("Bearer c", ["a", "b"]), false);
    assert.equal(bearerMatches("a", ["a"]), false);
    assert.equal(bearerMatches(undefined, ["a"]), false);
  });
});

describe("integration view", () => {
  it("masks secrets and sensitive headers, even in an old config holding a value", () => {
    const at = new Date("2026-11-25T00:00:00Z");
    const view = integrationView({
      id: "int_1",
      type: "webhook",
      name: "w",
      enabled: true,
      config: { url: "http://h", headers: { "X-Api-Key": "leaked", "X-Team": "a" } },
      secretsEncrypted: "v1:whatever",
      lastPushAt: null,
      lastPushOk: null,
      lastPushMessage: null,
      createdAt: at,
      updatedAt: at,
    });
    assert.equal(view.secret, null);
    assert.deepEqual(view.headers, { "X-Api-Key": null, "X-Team": "a" });
    assert.equal(JSON.stringify(view).includes("leaked"), false);
  });
});
