import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isAbsolute } from "node:path";
import { after, before, describe, it } from "node:test";
import { waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "../support/admin-gateway.js";

type ErrorBody = { error: { message: string; type: string; code: string } };
type Settings = Record<string, unknown> & { port: number; channel: string; providerRepos: unknown[] };
type AuditPage = {
  entries: {
    id: string;
    timestamp: string;
    userId: string | null;
    email: string | null;
    action: string;
    result: string;
  }[];
  pagination: { page: number; pageSize: number; totalRecords: number; totalPages: number };
};
type UpdateInfo = {
  available: boolean;
  currentVersion: string;
  latestVersion: string | null;
  channel: string;
  releaseUrl?: string;
  checkedAt: string;
  error?: string;
};

const DEFAULTS = {
  port: 3000,
  host: "0.0.0.0",
  dashboardEnabled: true,
  defaultTimeoutMs: 30000,
  logLevel: "info",
  publicUrl: "http://localhost:3000",
  channel: "stable",
  providerRepos: [],
  notifications: { channels: [], notificationRules: [], cooldowns: {} },
};

/** Runs `body` with environment variables set (undefined = unset), restoring them after. */
async function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  };
  apply(vars);
  try {
    return await body();
  } finally {
    apply(saved);
  }
}

// Settings, the audit log and the system endpoints (SPEC "Settings", "Audit", "Health and system").
describe("management API: settings, audit, system (standalone)", () => {
  let gw: AdminGateway;
  let admin: string;
  let member: string;
  let viewer: string;

  before(async () => {
    gw = await startAdminGateway("settings");
    admin = gw.adminToken;
    member = (await gw.userWithRole("member")).token;
    viewer = (await gw.userWithRole("viewer")).token;
  });

  after(async () => gw?.stop());

  const putSettings = (body: unknown, token = admin) =>
    gw.api.put<Settings & ErrorBody>("/settings", body, token);

  describe("settings", () => {
    it("answers the defaults to any signed-in user, 401 without a token", async () => {
      for (const token of [admin, member, viewer]) {
        const answer = await gw.api.get("/settings", token);
        assert.equal(answer.status, 200);
        assert.deepEqual(answer.body, DEFAULTS);
      }
      assert.equal((await gw.api.get("/settings")).status, 401);
    });

    it("updates only the fields sent and answers the whole object", async () => {
      const first = await putSettings({ port: 8080, logLevel: "debug" });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(first.body, { ...DEFAULTS, port: 8080, logLevel: "debug" });
      const second = await putSettings({
        publicUrl: "https://gw.example.com",
        defaultTimeoutMs: 45000,
        providerRepos: [
          { url: "https://catalog.example.com/repo" },
          { url: "http://mirror.local", enabled: false, channel: "latest" },
        ],
        channel: "v1.2.3",
      });
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.deepEqual(second.body, {
        ...DEFAULTS,
        port: 8080,
        logLevel: "debug",
        publicUrl: "https://gw.example.com",
        defaultTimeoutMs: 45000,
        channel: "v1.2.3",
        providerRepos: [
          { url: "https://catalog.example.com/repo", enabled: true },
          { url: "http://mirror.local", enabled: false, channel: "latest" },
        ],
      });
      assert.deepEqual((await gw.api.get("/settings", viewer)).body, second.body, "stored");
      const reset = await putSettings({ port: 3000, logLevel: "info", channel: "stable", providerRepos: [] });
      assert.equal(reset.body.channel, "stable");
      assert.deepEqual(reset.body.providerRepos, []);
    });

    it("refuses invalid values and fields it does not change with 400 naming the field", async () => {
      const cases: [unknown, RegExp][] = [
        [{ port: 0 }, /port: must be 1-65535/],
        [{ port: 65536 }, /port: must be 1-65535/],
        [{ port: 80.5 }, /port: must be a whole number/],
        [{ port: "8080" }, /port/],
        [{ logLevel: "trace" }, /logLevel/],
        [{ defaultTimeoutMs: 0 }, /defaultTimeoutMs: must be above 0/],
        [{ defaultTimeoutMs: -5 }, /defaultTimeoutMs/],
        [{ publicUrl: "ftp://example.com" }, /publicUrl: must be an http\(s\) URL/],
        [{ publicUrl: "not a url" }, /publicUrl/],
        [{ providerRepos: [{ enabled: true }] }, /providerRepos\.0\.url/],
        [
          { providerRepos: [{ url: "file:///etc/passwd" }] },
          /providerRepos\.0\.url: must be an http\(s\) URL/,
        ],
        [{ providerRepos: [{ url: "https://x.example", color: "red" }] }, /color/],
        [{ channel: "nightly" }, /channel: must be latest, stable, develop or a version tag/],
        [{ host: "127.0.0.1" }, /host: cannot be changed here/],
        [{ notifications: { channels: [] } }, /notifications: cannot be changed here/],
        [{ theme: "dark" }, /theme: not a settings field/],
        [[1, 2], /JSON object/],
      ];
      for (const [body, message] of cases) {
        const answer = await putSettings(body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.match(answer.body.error.message, message, JSON.stringify(answer.body));
      }
      assert.deepEqual((await gw.api.get("/settings", admin)).body, {
        ...DEFAULTS,
        publicUrl: "https://gw.example.com",
        defaultTimeoutMs: 45000,
      });
    });

    it("needs settings:write to change (member and viewer: 403), a token (401)", async () => {
      assert.equal((await putSettings({ port: 4000 }, member)).status, 403);
      assert.equal((await putSettings({ port: 4000 }, viewer)).status, 403);
      assert.equal((await putSettings({ port: 4000 }, "")).status, 401);
      assert.equal((await gw.api.get<Settings>("/settings", admin)).body.port, 3000);
    });
  });

  describe("audit log", () => {
    // Entries dated in 2030 so the real ones this suite produces (dated now) stay out of the range.
    const at = (day: number) => new Date(`2030-01-0${day}T10:00:00.000Z`);
    const seeded = [
      {
        id: "aud-1",
        timestamp: at(1),
        userId: "usr_alice",
        email: "alice@corp.example",
        action: "model:create",
        result: "success",
      },
      {
        id: "aud-2",
        timestamp: at(2),
        userId: "usr_alice",
        email: "alice@corp.example",
        action: "model:delete",
        result: "error",
      },
      {
        id: "aud-3",
        timestamp: at(3),
        userId: "usr_bob",
        email: "bob@other.example",
        action: "user:create",
        result: "forbidden",
      },
      {
        id: "aud-4",
        timestamp: at(4),
        userId: "usr_bob",
        email: "bob@other.example",
        action: "notification:read",
        result: "success",
      },
      {
        id: "aud-5",
        timestamp: at(5),
        userId: null,
        email: null,
        action: "setup:first-admin",
        result: "success",
      },
    ];
    const list = (query: string, token = admin) =>
      gw.api.get<AuditPage & ErrorBody>(`/audit?${query}`, token);
    const ids = (page: AuditPage) => page.entries.map((e) => e.id);

    before(async () => {
      await gw.handle.db.prisma.auditEntry.createMany({
        data: seeded.map((row) => ({ ...row, endpoint: "POST /api/test", details: { seeded: true } })),
      });
    });

    it("lists newest first with the entry shape and pagination", async () => {
      const all = await list("from=2030-01-01");
      assert.equal(all.status, 200);
      assert.deepEqual(ids(all.body), ["aud-5", "aud-4", "aud-3", "aud-2", "aud-1"]);
      assert.deepEqual(all.body.pagination, { page: 1, pageSize: 50, totalRecords: 5, totalPages: 1 });
      assert.deepEqual(all.body.entries[3], {
        id: "aud-2",
        timestamp: "2030-01-02T10:00:00.000Z",
        userId: "usr_alice",
        email: "alice@corp.example",
        endpoint: "POST /api/test",
        action: "model:delete",
        result: "error",
        details: { seeded: true },
      });
      const second = await list("from=2030-01-01&pageSize=2&page=2");
      assert.deepEqual(ids(second.body), ["aud-3", "aud-2"]);
      assert.deepEqual(second.body.pagination, { page: 2, pageSize: 2, totalRecords: 5, totalPages: 3 });
      assert.deepEqual(ids((await list("from=2030-01-01&pageSize=2&page=4")).body), []);
    });

    it("filters by user (id or email part), action part, result and time range", async () => {
      assert.deepEqual(ids((await list("userId=ALICE%40corp")).body), ["aud-2", "aud-1"]);
      assert.deepEqual(ids((await list("userId=usr_bob")).body), ["aud-4", "aud-3"]);
      assert.deepEqual(ids((await list("from=2030-01-01&action=create")).body), ["aud-3", "aud-1"]);
      assert.deepEqual(ids((await list("from=2030-01-01&result=forbidden")).body), ["aud-3"]);
      assert.deepEqual(
        ids((await list("from=2030-01-02&to=2030-01-03")).body),
        ["aud-3", "aud-2"],
        "a date-only to is inclusive",
      );
      assert.deepEqual(ids((await list("from=2030-01-02T10:00:00Z&to=2030-01-04T09:59:59Z")).body), [
        "aud-3",
        "aud-2",
      ]);
      assert.deepEqual(
        ids((await list("userId=bob&action=create&result=success")).body),
        [],
        "filters combine with AND",
      );
    });

    it("lists the entries the gateway itself writes", async () => {
      const page = await waitFor(
        async () => {
          const answer = await list("action=settings:update&result=success");
          return answer.body.entries.length > 0 ? answer.body : undefined;
        },
        { timeoutMs: 10_000, what: "settings:update audit entries" },
      );
      assert.equal(page.entries[0]!.email, "admin@example.com");
      const forbidden = await waitFor(
        async () => (await list("action=settings:update&result=forbidden")).body.entries[0],
      );
      assert.match(forbidden.email!, /^(member|viewer)-/);
    });

    it("refuses bad queries with 400", async () => {
      const cases: [string, RegExp][] = [
        ["pageSize=201", /pageSize: must be at most 200/],
        ["pageSize=0", /pageSize: must be at least 1/],
        ["page=abc", /page/],
        ["page=1.5", /page: must be a whole number/],
        ["result=maybe", /result/],
        ["from=yesterday", /from: must be an ISO 8601 date/],
        ["to=2030-13-45", /to/],
        ["from=2030-01-03&to=2030-01-01", /from: must not be after to/],
      ];
      for (const [query, message] of cases) {
        const answer = await list(query);
        assert.equal(answer.status, 400, query);
        assert.match(answer.body.error.message, message, JSON.stringify(answer.body));
      }
      assert.equal((await list("pageSize=200")).status, 200);
    });

    it("needs audit:read (member, viewer: 403) and a token (401)", async () => {
      assert.equal((await list("", member)).status, 403);
      assert.equal((await list("", viewer)).status, 403);
      assert.equal((await gw.api.get("/audit")).status, 401);
    });
  });

  describe("system", () => {
    let release: Server;
    let releaseUrl: string;
    let document: unknown;

    before(async () => {
      release = createServer((_request, response) => {
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(document));
      });
      await new Promise<void>((resolve) => release.listen(0, "127.0.0.1", resolve));
      releaseUrl = `http://127.0.0.1:${(release.address() as AddressInfo).port}/releases.json`;
    });

    after(async () => new Promise<void>((resolve) => release?.close(() => resolve())));

    const check = (token = viewer) => gw.api.get<UpdateInfo & ErrorBody>("/system/update-check", token);

    it("system info is public, with updateInfo null before any check", async () => {
      const info = await withEnv({ SERVICE_DOCKER: undefined }, () => gw.api.get("/system/info"));
      assert.equal(info.status, 200);
      const body = info.body as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), [
        "channel",
        "configDir",
        "dataDir",
        "isDocker",
        "nodeVersion",
        "platform",
        "updateInfo",
        "uptimeSeconds",
        "version",
      ]);
      assert.equal(typeof body.version, "string");
      assert.equal(body.nodeVersion, process.version);
      assert.equal(body.platform, process.platform);
      assert.ok(isAbsolute(body.dataDir as string) && isAbsolute(body.configDir as string));
      assert.ok(Number.isInteger(body.uptimeSeconds) && (body.uptimeSeconds as number) >= 0);
      assert.equal(body.channel, "stable");
      assert.equal(body.isDocker, false);
      assert.equal(body.updateInfo, null);
      const inDocker = await withEnv({ SERVICE_DOCKER: "1" }, () => gw.api.get("/system/info"));
      assert.equal(inDocker.body.isDocker, true);
    });

    it("update-check without a release source says so, and is cached for system info", async () => {
      assert.equal((await gw.api.get("/system/update-check")).status, 401);
      const answer = await withEnv({ SERVICE_RELEASE_URL: undefined }, () => check());
      assert.equal(answer.status, 200);
      const { checkedAt, ...rest } = answer.body;
      assert.ok(!Number.isNaN(Date.parse(checkedAt)));
      assert.deepEqual(rest, {
        available: false,
        currentVersion: rest.currentVersion,
        latestVersion: null,
        channel: "stable",
        error: "no release source configured",
      });
      assert.equal(typeof rest.currentVersion, "string");
      assert.deepEqual((await gw.api.get("/system/info")).body.updateInfo, answer.body);
    });

    it("update-check compares with the release source's channel; failures answer 200 with an error", async () => {
      const current = (await check()).body.currentVersion;
      document = {
        channels: {
          stable: { version: "999.0.0", url: "https://example.com/releases/999.0.0" },
          // The running version itself: nothing to update to.
          latest: { version: `v${current}` },
        },
      };
      const newer = await withEnv({ SERVICE_RELEASE_URL: releaseUrl }, () => check());
      assert.equal(newer.status, 200);
      assert.equal(newer.body.available, true);
      assert.equal(newer.body.latestVersion, "999.0.0");
      assert.equal(newer.body.releaseUrl, "https://example.com/releases/999.0.0");
      assert.equal(newer.body.error, undefined);
      assert.deepEqual((await gw.api.get("/system/info")).body.updateInfo, newer.body);

      assert.equal((await putSettings({ channel: "latest" })).status, 200);
      const same = await withEnv({ SERVICE_RELEASE_URL: releaseUrl }, () => check());
      assert.deepEqual(
        [same.body.available, same.body.latestVersion, same.body.channel],
        [false, current, "latest"],
      );

      assert.equal((await putSettings({ channel: "develop" })).status, 200);
      const missing = await withEnv({ SERVICE_RELEASE_URL: releaseUrl }, () => check());
      assert.equal(missing.body.available, false);
      assert.match(missing.body.error!, /no "develop" channel/);

      document = { nothing: true };
      const invalid = await withEnv({ SERVICE_RELEASE_URL: releaseUrl }, () => check());
      assert.match(invalid.body.error!, /not answer a valid release document/);

      const unreachable = await withEnv({ SERVICE_RELEASE_URL: "http://127.0.0.1:1/releases.json" }, () =>
        check(),
      );
      assert.equal(unreachable.status, 200);
      assert.equal(unreachable.body.available, false);
      assert.equal(unreachable.body.latestVersion, null);
      assert.match(unreachable.body.error!, /could not be reached/);
      assert.equal((await putSettings({ channel: "stable" })).status, 200);
    });

    it("update: admin only (403), refused in Docker (403), otherwise 202 in the background", async () => {
      assert.equal((await gw.api.post("/system/update", undefined)).status, 401);
      assert.equal((await gw.api.post("/system/update", undefined, member)).status, 403);
      assert.equal((await gw.api.post("/system/update", undefined, viewer)).status, 403);
      const docker = await withEnv({ SERVICE_DOCKER: "1" }, () =>
        gw.api.post<ErrorBody>("/system/update", undefined, admin),
      );
      assert.equal(docker.status, 403);
      assert.equal(docker.body.error.code, "update_in_docker");
      const accepted = await withEnv({ SERVICE_DOCKER: undefined }, () =>
        gw.api.post<{ message: string }>("/system/update", undefined, admin),
      );
      assert.equal(accepted.status, 202);
      assert.match(accepted.body.message, /cannot replace itself/);
      // Still serving after the background step.
      assert.equal((await gw.api.get("/system/info")).status, 200);
      const audited = await waitFor(
        async () => {
          const rows = await gw.handle.db.prisma.auditEntry.findMany({ where: { action: "system:update" } });
          const results = rows.map((r) => r.result);
          return results.includes("success") && results.includes("forbidden") ? results : undefined;
        },
        { what: "system:update audit entries" },
      );
      assert.ok(audited.includes("success"));
    });
  });
});
