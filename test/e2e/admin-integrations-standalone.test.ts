import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadIntegration } from "@gw/metrics";
import { waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

/** Every secret given to the API below: none may come back in any answer. */
const SECRET = {
  promToken: "prom-canary-token-1a2b3c",
  ddKey: "dd-canary-key-4d5e6f",
  grafanaKey: "grafana-canary-key-7a8b",
  influxToken: "influx-canary-token-9c0d",
  webhookSecret: "whsec-canary-1e2f",
  otelAuth: "Bearer otel-canary-3a4b",
  webhookApiKey: "wh-header-canary-5c6d",
  rotated: "whsec-rotated-canary-7e8f",
};

/** One valid create body per type, with every field (all secrets set). */
const BODIES = {
  prometheus: { type: "prometheus", name: "scrape", authToken: SECRET.promToken },
  otel: {
    type: "otel",
    name: "collector",
    endpoint: "http://127.0.0.1:4318",
    protocol: "http/json",
    headers: { Authorization: SECRET.otelAuth, "X-Scope": "gateway" },
  },
  datadog: { type: "datadog", name: "dd", apiKey: SECRET.ddKey, site: "datadoghq.eu" },
  grafana: {
    type: "grafana",
    name: "mimir",
    url: "http://127.0.0.1:9009/api/prom/push",
    username: "1234",
    apiKey: SECRET.grafanaKey,
  },
  influxdb: {
    type: "influxdb",
    name: "influx",
    url: "http://127.0.0.1:8086",
    token: SECRET.influxToken,
    org: "acme",
    bucket: "gateway",
  },
  webhook: {
    type: "webhook",
    name: "hook",
    url: "http://127.0.0.1:9999/hook",
    secret: SECRET.webhookSecret,
    headers: { "X-Api-Key": SECRET.webhookApiKey, "X-Team": "platform" },
  },
} as const;

/** What each type answers besides the common fields: secrets null, sensitive headers null. */
const VIEWS: Record<keyof typeof BODIES, Record<string, unknown>> = {
  prometheus: { authToken: null },
  otel: {
    endpoint: BODIES.otel.endpoint,
    protocol: "http/json",
    headers: { Authorization: null, "X-Scope": "gateway" },
  },
  datadog: { apiKey: null, site: "datadoghq.eu" },
  grafana: { url: BODIES.grafana.url, username: "1234", apiKey: null },
  influxdb: { url: BODIES.influxdb.url, token: null, org: "acme", bucket: "gateway" },
  webhook: { url: BODIES.webhook.url, secret: null, headers: { "X-Api-Key": null, "X-Team": "platform" } },
};

type View = Record<string, unknown> & { id: string };

describe("integrations API (standalone, real HTTP)", () => {
  let gw: AdminGateway;
  let admin: string;
  /** Every answer body, as JSON text: checked for secrets at the end. */
  const answers: string[] = [];

  async function call<T = View>(method: string, path: string, body?: unknown, token = admin) {
    const answer = await gw.api.call<T>(method, path, { token, ...(body === undefined ? {} : { body }) });
    answers.push(JSON.stringify(answer.body));
    return answer;
  }

  async function create(body: Record<string, unknown>): Promise<View> {
    const answer = await call("POST", "/integrations", body);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body;
  }

  before(async () => {
    gw = await startAdminGateway("admin-integrations");
    admin = gw.adminToken;
  });
  after(() => gw?.stop());

  it("creates, reads, lists, updates and deletes each of the six types, secrets masked as null", async () => {
    for (const [type, body] of Object.entries(BODIES) as [keyof typeof BODIES, Record<string, unknown>][]) {
      const created = await create(body);
      assert.match(created.id, /^int_/);
      const expected = {
        id: created.id,
        type,
        name: body.name,
        enabled: true,
        ...VIEWS[type],
        lastPushAt: null,
        lastPushOk: null,
        lastPushMessage: null,
        createdAt: created.createdAt,
        updatedAt: created.updatedAt,
      };
      assert.deepEqual(created, expected, type);
      // The standalone push scheduler may push in between: later reads ignore the lastPush fields.
      assert.deepEqual(stable((await call("GET", `/integrations/${created.id}`)).body), stable(expected));
      const renamed = await call("PATCH", `/integrations/${created.id}`, {
        name: `${type} 2`,
        enabled: false,
      });
      assert.equal(renamed.status, 200);
      assert.deepEqual(
        stable({ ...renamed.body, updatedAt: null }),
        stable({ ...expected, name: `${type} 2`, enabled: false, updatedAt: null }),
      );
      // The secrets are still stored (and decrypt) after a PATCH that did not give them.
      const resolved = await loadIntegration(gw.handle.db.prisma, gw.handle.secretKey, created.id);
      assert.equal(resolved?.type, type);
      assert.equal(resolved?.enabled, false);
      const settings = resolved?.settings as Record<string, unknown>;
      for (const field of ["authToken", "apiKey", "token", "secret"])
        if (field in body) assert.equal(settings[field], body[field], `${type} ${field}`);
    }
    const list = await call<{ integrations: View[] }>("GET", "/integrations");
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.integrations.map((integration) => integration.type),
      Object.keys(BODIES),
    );
    for (const integration of list.body.integrations) {
      assert.equal((await call("DELETE", `/integrations/${integration.id}`)).status, 204);
      assert.equal((await call("GET", `/integrations/${integration.id}`)).status, 404);
      const again = await call<{ error: { code: string } }>("DELETE", `/integrations/${integration.id}`);
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, "not_found");
    }
    assert.deepEqual((await call("GET", "/integrations")).body, { integrations: [] });
  });

  it("defaults name to the type and enabled to true; optional fields take their defaults", async () => {
    const created = await create({ type: "datadog", apiKey: SECRET.ddKey });
    assert.equal(created.name, "datadog");
    assert.equal(created.enabled, true);
    assert.equal(created.site, "datadoghq.com");
    const otel = await create({ type: "otel", endpoint: "https://otel.example.com/" });
    assert.equal(otel.protocol, "http/protobuf");
    assert.deepEqual(otel.headers, {});
    const prometheus = await create({ type: "prometheus", authToken: null });
    assert.equal(prometheus.authToken, null);
    const resolved = await loadIntegration(gw.handle.db.prisma, gw.handle.secretKey, prometheus.id);
    assert.deepEqual(resolved?.settings, {});
    for (const id of [created.id, otel.id, prometheus.id]) await call("DELETE", `/integrations/${id}`);
  });

  it("PATCH keeps secrets given as null or empty, replaces them when given, and merges headers", async () => {
    const hook = await create(BODIES.webhook);
    const settingsOf = async () =>
      (await loadIntegration(gw.handle.db.prisma, gw.handle.secretKey, hook.id))?.settings as Record<
        string,
        unknown
      >;

    // The answer sent back as-is (masked nulls included) changes nothing secret.
    const {
      id: _id,
      lastPushAt: _a,
      lastPushOk: _o,
      lastPushMessage: _m,
      createdAt: _c,
      updatedAt: _u,
      ...echo
    } = hook;
    assert.equal((await call("PATCH", `/integrations/${hook.id}`, echo)).status, 200);
    assert.deepEqual(await settingsOf(), settingsWithout(BODIES.webhook));

    assert.equal((await call("PATCH", `/integrations/${hook.id}`, { secret: "" })).status, 200);
    assert.equal((await settingsOf()).secret, SECRET.webhookSecret);

    const rotated = await call("PATCH", `/integrations/${hook.id}`, { secret: SECRET.rotated });
    assert.equal(rotated.body.secret, null);
    assert.equal((await settingsOf()).secret, SECRET.rotated);

    // headers: null keeps the stored value (any case), an omitted header is removed, a new one added.
    const headers = await call("PATCH", `/integrations/${hook.id}`, {
      headers: { "x-api-key": null, "X-New": "1" },
    });
    assert.equal(headers.status, 200);
    assert.deepEqual(headers.body.headers, { "x-api-key": null, "X-New": "1" });
    assert.deepEqual((await settingsOf()).headers, { "x-api-key": SECRET.webhookApiKey, "X-New": "1" });

    const unknownNull = await call<{ error: { message: string } }>("PATCH", `/integrations/${hook.id}`, {
      headers: { "X-Token": null },
    });
    assert.equal(unknownNull.status, 400);
    assert.match(unknownNull.body.error.message, /^headers\.X-Token: /);

    const url = await call("PATCH", `/integrations/${hook.id}`, { url: "https://hooks.example.com/in" });
    assert.equal(url.body.url, "https://hooks.example.com/in");
    assert.equal((await settingsOf()).secret, SECRET.rotated);
    await call("DELETE", `/integrations/${hook.id}`);
  });

  it("answers 400 naming the field for bad bodies, and changes nothing", async () => {
    const cases: [Record<string, unknown> | unknown[], RegExp][] = [
      [{}, /^type: is required/],
      [{ type: "carrier-pigeon" }, /^type: must be one of prometheus, otel/],
      [[], /JSON object/],
      [{ type: "datadog" }, /^apiKey: is required/],
      [{ type: "datadog", apiKey: "" }, /^apiKey: /],
      [{ type: "datadog", apiKey: "k", site: "datadoghq.moon" }, /^site: /],
      [{ type: "prometheus", port: 9090 }, /port/],
      [{ type: "prometheus", name: "" }, /^name: /],
      [{ type: "grafana", url: "http://g.example", apiKey: "k" }, /^username: is required/],
      [{ type: "influxdb", url: "http://i.example", token: "t", org: "o" }, /^bucket: is required/],
      [{ type: "otel", endpoint: "not a url" }, /^endpoint: /],
      [{ type: "otel", endpoint: "ftp://files.example.com/" }, /^endpoint: only http and https/],
      [{ type: "otel", endpoint: "http://o.example", protocol: "grpc" }, /^protocol: /],
      [{ type: "webhook", url: "http://169.254.169.254/latest/meta-data" }, /^url: refused: .*metadata/],
      [{ type: "webhook", url: "http://[fe80::1]/hook" }, /^url: refused/],
      [
        { type: "influxdb", url: "http://169.254.169.254", token: "t", org: "o", bucket: "b" },
        /^url: refused/,
      ],
      [
        { type: "webhook", url: "http://h.example", headers: { "X-A": "1\r\nX-B: 2" } },
        /^headers\.X-A: must not contain line breaks/,
      ],
      [
        { type: "webhook", url: "http://h.example", headers: { "Bad Name": "1" } },
        /^headers\.Bad Name: is not a valid HTTP header name/,
      ],
      [
        { type: "webhook", url: "http://h.example", headers: { "X-A": "1", "x-a": "2" } },
        /^headers\.x-a: is given twice/,
      ],
      [{ type: "webhook", url: "http://h.example", enabled: "yes" }, /^enabled: /],
    ];
    for (const [body, message] of cases) {
      const answer = await call<{ error: { message: string; type: string; code: string } }>(
        "POST",
        "/integrations",
        body,
      );
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.type, "invalid_request_error");
      assert.match(answer.body.error.message, message, JSON.stringify(body));
    }
    assert.deepEqual((await call("GET", "/integrations")).body, { integrations: [] });

    const grafana = await create(BODIES.grafana);
    const patches: [Record<string, unknown>, RegExp][] = [
      [{ type: "influxdb" }, /^type: cannot change/],
      [{ secret: "s" }, /secret/],
      [{ url: "http://169.254.169.254/push" }, /^url: refused/],
      [{ username: "" }, /^username: /],
      [{ name: "" }, /^name: /],
    ];
    for (const [body, message] of patches) {
      const answer = await call<{ error: { message: string } }>("PATCH", `/integrations/${grafana.id}`, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.body.error.message, message);
    }
    // The same type given again is not a change.
    assert.equal((await call("PATCH", `/integrations/${grafana.id}`, { type: "grafana" })).status, 200);
    assert.deepEqual((await call("GET", `/integrations/${grafana.id}`)).body.url, BODIES.grafana.url);
    await call("DELETE", `/integrations/${grafana.id}`);
  });

  it("accepts a metadata address when SERVICE_ALLOW_METADATA_URLS=1", async () => {
    process.env.SERVICE_ALLOW_METADATA_URLS = "1";
    try {
      const created = await create({ type: "webhook", url: "http://169.254.169.254/hook" });
      await call("DELETE", `/integrations/${created.id}`);
    } finally {
      delete process.env.SERVICE_ALLOW_METADATA_URLS;
    }
  });

  it("answers 404 for an unknown id on every route", async () => {
    for (const [method, path, body] of [
      ["GET", "/integrations/int_missing", undefined],
      ["PATCH", "/integrations/int_missing", { name: "x" }],
      ["DELETE", "/integrations/int_missing", undefined],
      ["POST", "/integrations/int_missing/test", undefined],
    ] as const) {
      const answer = await call<{ error: { type: string } }>(method, path, body);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.error.type, "not_found_error");
    }
  });

  it("needs settings:write for every route, reads included (403 for member and viewer)", async () => {
    const existing = await create(BODIES.datadog);
    for (const role of ["member", "viewer"]) {
      const { token } = await gw.userWithRole(role);
      for (const [method, path, body] of [
        ["GET", "/integrations", undefined],
        ["POST", "/integrations", BODIES.datadog],
        ["GET", `/integrations/${existing.id}`, undefined],
        ["PATCH", `/integrations/${existing.id}`, { name: "taken over" }],
        ["DELETE", `/integrations/${existing.id}`, undefined],
        ["POST", `/integrations/${existing.id}/test`, undefined],
      ] as const) {
        const answer = await call<{ error: { type: string } }>(method, path, body, token);
        assert.equal(answer.status, 403, `${role} ${method} ${path}`);
        assert.equal(answer.body.error.type, "permission_error");
      }
    }
    const still = await call("GET", `/integrations/${existing.id}`);
    assert.equal(still.body.name, "dd");
    await call("DELETE", `/integrations/${existing.id}`);
  });

  it("replays a create with the same Idempotency-Key instead of creating twice", async () => {
    const headers = { "idempotency-key": "integration-create-1" };
    const first = await gw.api.call<View>("POST", "/integrations", {
      token: admin,
      body: BODIES.influxdb,
      headers,
    });
    const second = await gw.api.call<View>("POST", "/integrations", {
      token: admin,
      body: BODIES.influxdb,
      headers,
    });
    answers.push(JSON.stringify(first.body), JSON.stringify(second.body));
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get("idempotency-replayed"), "true");
    assert.equal(second.body.id, first.body.id);
    assert.equal((await call<{ integrations: View[] }>("GET", "/integrations")).body.integrations.length, 1);
    await call("DELETE", `/integrations/${first.body.id}`);
  });

  it("audits create, update, delete and test with safe details only", async () => {
    const created = await create(BODIES.prometheus);
    await call("PATCH", `/integrations/${created.id}`, { authToken: SECRET.rotated });
    const tested = await call<{ ok: boolean; message: string }>("POST", `/integrations/${created.id}/test`);
    assert.equal(tested.status, 200);
    assert.equal(tested.body.ok, true);
    assert.match(tested.body.message, /pull/);
    await call("DELETE", `/integrations/${created.id}`);
    const rows = await waitFor(
      async () => {
        const found = await gw.handle.db.prisma.auditEntry.findMany({
          where: { action: { startsWith: "integration:" } },
        });
        const forThis = found.filter((row) => JSON.stringify(row.details).includes(created.id));
        return forThis.length >= 4 ? forThis : undefined;
      },
      { what: "integration audit rows" },
    );
    assert.deepEqual(rows.map((row) => row.action).sort(), [
      "integration:create",
      "integration:delete",
      "integration:test",
      "integration:update",
    ]);
    assert.ok(rows.every((row) => row.result === "success"));
    const update = rows.find((row) => row.action === "integration:update");
    assert.deepEqual(update?.details, {
      integrationId: created.id,
      type: "prometheus",
      changed: ["authToken"],
      id: created.id,
      status: 200,
    });
    // Every audit row of the suite so far (forbidden attempts and 400s included) is checked for secrets.
    const all = JSON.stringify(await gw.handle.db.prisma.auditEntry.findMany());
    for (const secret of Object.values(SECRET))
      assert.equal(all.includes(secret), false, `audit holds ${secret}`);
  });

  it("never answered a secret", () => {
    assert.ok(answers.length > 50, `${answers.length} answers checked`);
    const text = answers.join("\n");
    for (const secret of Object.values(SECRET))
      assert.equal(text.includes(secret), false, `an answer holds ${secret}`);
  });
});

/** A view without what a scheduled push may change (lastPushAt, lastPushOk, lastPushMessage). */
function stable(view: Record<string, unknown>): Record<string, unknown> {
  const { lastPushAt: _at, lastPushOk: _ok, lastPushMessage: _message, ...rest } = view;
  return rest;
}

/** The complete settings the exporter reads for the webhook body above (name and type aside). */
function settingsWithout(body: Record<string, unknown>): Record<string, unknown> {
  const { type: _t, name: _n, ...settings } = body;
  return settings;
}
