import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createDatabase, type Database } from "@gw/db";
import { encryptSecret } from "@gw/security";
import {
  type IntegrationRow,
  type InvalidIntegration,
  loadEnabledIntegrations,
  loadIntegration,
  recordPushResult,
  resolveIntegration,
  secretFieldsOf,
  toStoredIntegration,
} from "./integration-store.js";
import type { ResolvedIntegration } from "./integration-types.js";

const key = randomBytes(32);

function row(integration: ResolvedIntegration, secretKey = key): IntegrationRow {
  const stored = toStoredIntegration(integration, secretKey);
  return {
    id: integration.id,
    type: integration.type,
    name: integration.name,
    enabled: integration.enabled,
    config: stored.config,
    secretsEncrypted: stored.secretsEncrypted,
  };
}

const webhook: ResolvedIntegration = {
  id: "int_webhook",
  name: "hook",
  type: "webhook",
  enabled: true,
  settings: {
    url: "https://example.com/hook",
    secret: "whsec-1",
    headers: { "X-Team": "a", "X-Api-Key": "k-1" },
  },
};

describe("integration store mapping", () => {
  it("keeps secrets and sensitive header values out of config and gets them back", () => {
    const stored = toStoredIntegration(webhook, key);
    assert.deepEqual(stored.config, {
      url: "https://example.com/hook",
      headers: { "X-Team": "a", "X-Api-Key": null },
    });
    assert.ok(stored.secretsEncrypted);
    assert.ok(!stored.secretsEncrypted.includes("whsec-1"));
    assert.ok(!JSON.stringify(stored).includes("k-1"));
    assert.deepEqual(resolveIntegration(row(webhook), key), webhook);
  });

  it("stores no ciphertext when the integration has no secret", () => {
    const prometheus: ResolvedIntegration = {
      id: "int_p",
      name: "p",
      type: "prometheus",
      enabled: true,
      settings: {},
    };
    assert.deepEqual(toStoredIntegration(prometheus, key), { config: {}, secretsEncrypted: null });
    assert.deepEqual(resolveIntegration(row(prometheus), key), prometheus);
  });

  it("round-trips every type", () => {
    const all: ResolvedIntegration[] = [
      { id: "1", name: "p", type: "prometheus", enabled: true, settings: { authToken: "t" } },
      {
        id: "2",
        name: "o",
        type: "otel",
        enabled: false,
        settings: {
          endpoint: "https://otel.example.com",
          protocol: "http/json",
          headers: { Authorization: "Bearer x" },
        },
      },
      {
        id: "3",
        name: "d",
        type: "datadog",
        enabled: true,
        settings: { apiKey: "dd", site: "datadoghq.eu" },
      },
      {
        id: "4",
        name: "g",
        type: "grafana",
        enabled: true,
        settings: { url: "https://g.example", username: "u", apiKey: "k" },
      },
      {
        id: "5",
        name: "i",
        type: "influxdb",
        enabled: true,
        settings: { url: "https://i.example", token: "tk", org: "o", bucket: "b" },
      },
      webhook,
    ];
    for (const integration of all) assert.deepEqual(resolveIntegration(row(integration), key), integration);
  });

  it("lists the secret fields of each type", () => {
    assert.deepEqual(secretFieldsOf("prometheus"), ["authToken"]);
    assert.deepEqual(secretFieldsOf("otel"), []);
    assert.deepEqual(secretFieldsOf("grafana"), ["apiKey"]);
    assert.deepEqual(secretFieldsOf("influxdb"), ["token"]);
    assert.deepEqual(secretFieldsOf("webhook"), ["secret"]);
  });

  it("returns null and reports, without secrets, a row it cannot resolve", () => {
    const reports: InvalidIntegration[] = [];
    const onInvalid = (invalid: InvalidIntegration) => reports.push(invalid);
    assert.equal(resolveIntegration(row(webhook, randomBytes(32)), key, onInvalid), null);
    assert.equal(resolveIntegration({ ...row(webhook), secretsEncrypted: "garbage" }, key, onInvalid), null);
    assert.equal(resolveIntegration({ ...row(webhook), type: "carrier-pigeon" }, key, onInvalid), null);
    const noKey = {
      ...row(webhook),
      config: { url: "not a url" },
      secretsEncrypted: encryptSecret("{}", key),
    };
    assert.equal(resolveIntegration(noKey, key, onInvalid), null);
    assert.equal(reports.length, 4);
    assert.match(reports[3]?.reason ?? "", /url/);
    assert.ok(!JSON.stringify(reports).includes("whsec-1"));
    assert.ok(!JSON.stringify(reports).includes("not a url"));
  });
});

describe("integration store on a database", () => {
  let db: Database;
  before(async () => {
    db = await createDatabase();
    await db.migrate();
  });
  after(() => db?.close());

  async function insert(integration: ResolvedIntegration, secretKey = key): Promise<void> {
    const stored = toStoredIntegration(integration, secretKey);
    await db.prisma.integration.create({
      data: {
        id: integration.id,
        type: integration.type,
        name: integration.name,
        enabled: integration.enabled,
        ...stored,
      },
    });
  }

  it("loads enabled integrations, skipping and reporting the broken ones", async () => {
    await insert({ ...webhook, id: "int_a" });
    await insert({ ...webhook, id: "int_off", enabled: false });
    await insert({ ...webhook, id: "int_wrong_key" }, randomBytes(32));
    const reports: InvalidIntegration[] = [];
    const enabled = await loadEnabledIntegrations(db.prisma, key, (invalid) => reports.push(invalid));
    assert.deepEqual(
      enabled.map((integration) => integration.id),
      ["int_a"],
    );
    assert.deepEqual(
      reports.map((report) => report.id),
      ["int_wrong_key"],
    );
    assert.equal((await loadIntegration(db.prisma, key, "int_off"))?.enabled, false);
    assert.equal(await loadIntegration(db.prisma, key, "int_missing"), null);
  });

  it("records a push result without touching updatedAt", async () => {
    const before = await db.prisma.integration.findUniqueOrThrow({ where: { id: "int_a" } });
    const at = new Date("2026-11-25T03:00:00.000Z");
    await recordPushResult(db.prisma, "int_a", { ok: false, message: "x".repeat(2000) }, at);
    const after = await db.prisma.integration.findUniqueOrThrow({ where: { id: "int_a" } });
    assert.equal(after.lastPushAt?.toISOString(), at.toISOString());
    assert.equal(after.lastPushOk, false);
    assert.equal(after.lastPushMessage?.length, 500);
    assert.equal(after.updatedAt.toISOString(), before.updatedAt.toISOString());
    await recordPushResult(db.prisma, "int_gone", { ok: true, message: "ok" }, at);
  });
});
