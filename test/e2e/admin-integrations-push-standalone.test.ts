import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type DecodedMetric,
  type FakeUpstream,
  type MetricReceivers,
  startFakeUpstream,
  startMetricReceivers,
  waitFor,
} from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

const SECRET = {
  promToken: "prom-pull-canary-2b3c4d",
  otelAuth: "Bearer otel-push-canary-5e6f",
  ddKey: "dd-push-canary-7a8b",
  grafanaKey: "grafana-push-canary-9c0d",
  influxToken: "influx-push-canary-1e2f",
  webhookSecret: "whsec-push-canary-3a4b",
  webhookApiKey: "wh-push-header-canary-5c6d",
};
const MODEL = "push-model";

type View = Record<string, unknown> & { id: string };
type TestAnswer = { ok: boolean; message: string };

// The test endpoint sends real pushes to fake receivers that decode each native format, and the
// Prometheus pull endpoint serves what requests through the proxy were counted as.
describe("integration test pushes and the Prometheus pull endpoint (standalone, real HTTP)", () => {
  let gw: AdminGateway;
  let admin: string;
  let upstream: FakeUpstream;
  let receivers: MetricReceivers;
  let projectToken: string;
  let slug: string;
  const answers: string[] = [];
  const datadogApiUrl = process.env.SERVICE_DATADOG_API_URL;

  async function call<T = View>(method: string, path: string, body?: unknown) {
    const answer = await gw.api.call<T>(method, path, {
      token: admin,
      ...(body === undefined ? {} : { body }),
    });
    answers.push(JSON.stringify(answer.body));
    return answer;
  }

  async function create(body: Record<string, unknown>): Promise<View> {
    const answer = await call("POST", "/integrations", body);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body;
  }

  async function test(id: string): Promise<TestAnswer> {
    const answer = await call<TestAnswer>("POST", `/integrations/${id}/test`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  }

  async function scrape(authorization?: string) {
    const response = await fetch(`${gw.handle.url}/api/metrics`, {
      headers: authorization ? { authorization } : {},
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, headers: response.headers };
  }

  async function chat(): Promise<void> {
    const response = await fetch(`${gw.handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${projectToken}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 200, await response.text());
  }

  const requestsLine = (count: number) =>
    `service_requests_total{project="${slug}",model="${MODEL}"} ${count}`;

  /** Waits until the exporter state counted `count` requests (read through the pull endpoint). */
  async function counted(count: number): Promise<string> {
    return waitFor(
      async () => {
        const { status, text } = await scrape(`Bearer ${SECRET.promToken}`);
        return status === 200 && text.split("\n").includes(requestsLine(count)) ? text : undefined;
      },
      { what: `${count} request(s) counted in the metric state`, timeoutMs: 20_000 },
    );
  }

  function requests(metrics: DecodedMetric[]): DecodedMetric | undefined {
    return metrics.find(
      (metric) =>
        metric.name === "service_requests_total" &&
        metric.labels.project === slug &&
        metric.labels.model === MODEL,
    );
  }

  before(async () => {
    upstream = await startFakeUpstream();
    receivers = await startMetricReceivers({ webhookSecret: SECRET.webhookSecret });
    // Datadog's address comes from its site; the push path reads this override at each push.
    process.env.SERVICE_DATADOG_API_URL = receivers.datadog.url;
    gw = await startAdminGateway("admin-integrations-push");
    admin = gw.adminToken;
    const model = await call("POST", "/models", {
      id: MODEL,
      provider: "custom",
      baseUrl: upstream.baseUrl,
      apiKey: "sk-upstream",
    });
    assert.equal(model.status, 201, JSON.stringify(model.body));
    const project = await call<{ slug: string }>("POST", "/projects", { name: "Pushes", models: [MODEL] });
    slug = project.body.slug;
    const token = await gw.api.post<{ token: string }>(`/projects/${slug}/tokens`, { name: "ci" }, admin);
    projectToken = token.body.token;
  });

  after(async () => {
    if (datadogApiUrl === undefined) delete process.env.SERVICE_DATADOG_API_URL;
    else process.env.SERVICE_DATADOG_API_URL = datadogApiUrl;
    await gw?.stop();
    await receivers?.close();
    await upstream?.close();
  });

  it("GET /api/metrics: 404 without an enabled prometheus integration, 401 without its token, the text format with it", async () => {
    const none = await scrape();
    assert.equal(none.status, 404);
    assert.match(JSON.parse(none.text).error.message, /No enabled prometheus integration/);

    const prometheus = await create({ type: "prometheus", authToken: SECRET.promToken, enabled: false });
    assert.equal(
      (await scrape(`Bearer ${SECRET.promToken}`)).status,
      404,
      "a disabled integration serves nothing",
    );
    await call("PATCH", `/integrations/${prometheus.id}`, { enabled: true });

    for (const authorization of [undefined, "Bearer wrong-token", `Bearer ${admin}`, SECRET.promToken]) {
      const refused = await scrape(authorization);
      assert.equal(refused.status, 401, String(authorization));
      assert.equal(JSON.parse(refused.text).error.type, "authentication_error");
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer/);
    }
    const allowed = await scrape(`Bearer ${SECRET.promToken}`);
    assert.equal(allowed.status, 200);
    assert.match(allowed.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);

    // A request through the proxy shows up in the text format.
    await chat();
    const text = await counted(1);
    assert.match(text, /^# TYPE service_requests_total counter$/m);
    assert.match(
      text,
      new RegExp(`^service_tokens_total\\{type="input",project="${slug}",model="${MODEL}"\\} \\d+$`, "m"),
    );

    // One enabled prometheus integration without a token opens the endpoint; removing it closes it again.
    const open = await create({ type: "prometheus", name: "open" });
    assert.equal((await scrape()).status, 200);
    assert.equal((await call("DELETE", `/integrations/${open.id}`)).status, 204);
    assert.equal((await scrape()).status, 401);

    const tested = await test(prometheus.id);
    assert.equal(tested.ok, true);
    assert.match(tested.message, /pull-based/);
  });

  it("test sends one real push per type, decoded by a receiver of its native format", async () => {
    await counted(1);
    const otel = await create({
      type: "otel",
      endpoint: receivers.otel.url,
      headers: { Authorization: SECRET.otelAuth, "X-Scope": "gateway" },
    });
    for (const protocol of ["http/protobuf", "http/json"]) {
      await call("PATCH", `/integrations/${otel.id}`, {
        protocol,
        headers: { Authorization: null, "X-Scope": "gateway" },
      });
      const result = await test(otel.id);
      assert.equal(result.ok, true, result.message);
      const push = receivers.otel.pushes.at(-1)!;
      assert.equal(push.error, undefined);
      assert.equal(push.headers.authorization, SECRET.otelAuth);
      assert.equal(push.headers["x-scope"], "gateway");
      assert.match(String(push.headers["content-type"]), protocol === "http/json" ? /json/ : /protobuf/);
      const sample = requests(push.metrics);
      assert.equal(sample?.value, 1, protocol);
      assert.equal(sample?.type, "sum");
    }

    const grafana = await create({
      type: "grafana",
      url: `${receivers.grafana.url}/api/prom/push`,
      username: "1234",
      apiKey: SECRET.grafanaKey,
    });
    assert.equal((await test(grafana.id)).ok, true);
    const remoteWrite = receivers.grafana.pushes.at(-1)!;
    assert.deepEqual(remoteWrite.auth.basic, { username: "1234", password: SECRET.grafanaKey });
    assert.equal(requests(remoteWrite.metrics)?.value, 1);

    const influx = await create({
      type: "influxdb",
      url: receivers.influxdb.url,
      token: SECRET.influxToken,
      org: "acme",
      bucket: "gateway",
    });
    assert.equal((await test(influx.id)).ok, true);
    const line = receivers.influxdb.pushes.at(-1)!;
    assert.equal(line.auth.token, SECRET.influxToken);
    assert.deepEqual({ org: line.query.org, bucket: line.query.bucket }, { org: "acme", bucket: "gateway" });
    assert.equal(requests(line.metrics)?.value, 1);

    const hook = await create({
      type: "webhook",
      url: `${receivers.webhook.url}/hook`,
      secret: SECRET.webhookSecret,
      headers: { "X-Api-Key": SECRET.webhookApiKey },
    });
    assert.equal((await test(hook.id)).ok, true);
    const json = receivers.webhook.pushes.at(-1)!;
    assert.equal(json.signatureValid, true);
    assert.equal(json.headers["x-api-key"], SECRET.webhookApiKey);
    assert.equal(requests(json.metrics)?.value, 1);

    // Datadog counts are deltas since the last push: the first push sends 0, the next the increase.
    const datadog = await create({ type: "datadog", apiKey: SECRET.ddKey, site: "datadoghq.eu" });
    assert.equal((await test(datadog.id)).ok, true);
    const first = receivers.datadog.pushes.at(-1)!;
    assert.equal(first.auth.apiKey, SECRET.ddKey);
    assert.deepEqual(
      { type: requests(first.metrics)?.type, value: requests(first.metrics)?.value },
      { type: "count", value: 0 },
    );
    await chat();
    await counted(2);
    assert.equal((await test(datadog.id)).ok, true);
    assert.equal(requests(receivers.datadog.pushes.at(-1)!.metrics)?.value, 1);

    // Each test push is recorded on its row.
    for (const id of [otel.id, grafana.id, influx.id, hook.id, datadog.id]) {
      const row = (await call("GET", `/integrations/${id}`)).body;
      assert.equal(row.lastPushOk, true, id);
      assert.equal(typeof row.lastPushAt, "string");
      assert.match(String(row.lastPushMessage), /pushed/);
    }
    // A disabled integration is tested all the same (testing before enabling is the point).
    await call("PATCH", `/integrations/${hook.id}`, { enabled: false });
    assert.equal((await test(hook.id)).ok, true);
  });

  it("answers ok: false with the reason when the receiver fails or cannot be reached, never a secret", async () => {
    const hook = await create({
      type: "webhook",
      url: `${receivers.webhook.url}/hook`,
      secret: SECRET.webhookSecret,
    });
    receivers.webhook.fail(500, "receiver exploded");
    const failed = await test(hook.id);
    assert.equal(failed.ok, false);
    assert.match(failed.message, /500/);
    assert.match(failed.message, /receiver exploded/);
    const row = (await call("GET", `/integrations/${hook.id}`)).body;
    assert.equal(row.lastPushOk, false);
    assert.match(String(row.lastPushMessage), /500/);
    receivers.webhook.reset();

    // A receiver that echoes the credential back: the reason quotes it redacted.
    const influx = await create({
      type: "influxdb",
      url: receivers.influxdb.url,
      token: SECRET.influxToken,
      org: "acme",
      bucket: "gateway",
    });
    receivers.influxdb.fail(401, (push) =>
      JSON.stringify({ message: `token ${push.auth.token} is not valid` }),
    );
    const echoed = await test(influx.id);
    assert.equal(echoed.ok, false);
    assert.match(echoed.message, /401/);
    assert.equal(echoed.message.includes(SECRET.influxToken), false, echoed.message);
    receivers.influxdb.reset();

    const unreachable = await create({ type: "webhook", url: "http://127.0.0.1:1/hook" });
    const refused = await test(unreachable.id);
    assert.equal(refused.ok, false);
    assert.ok(refused.message.length > 0);
  });

  it("never answered a secret", () => {
    const text = answers.join("\n");
    for (const secret of Object.values(SECRET))
      assert.equal(text.includes(secret), false, `an answer holds ${secret}`);
  });
});
