import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { type AdminClient, adminClient } from "./admin-client.js";
import { testServiceContext } from "./silent-context.js";

export interface AdminGateway {
  handle: Awaited<ReturnType<typeof startStandalone>>;
  api: AdminClient;
  /** Access token of the first admin (email admin@example.com). */
  adminToken: string;
  /** A new user with `role` (built-in or custom), signed in: its access token. */
  userWithRole(role: string): Promise<{ id: string; token: string }>;
  stop(): Promise<void>;
}

const PASSWORD = "a long enough password";

/** A standalone gateway with its first admin set up and signed in, for management API suites. */
export async function startAdminGateway(name: string): Promise<AdminGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), `gw-${name}-`));
  const context = testServiceContext("standalone");
  const handle = await startStandalone(
    readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
    context,
  );
  const api = adminClient(handle.url);
  const setup = await api.post<{ token: string }>("/setup/first-admin", {
    email: "admin@example.com",
    password: PASSWORD,
  });
  if (setup.status !== 201) throw new Error(`first admin: ${setup.status} ${JSON.stringify(setup.body)}`);
  const adminToken = setup.body.token;
  let users = 0;
  return {
    handle,
    api,
    adminToken,
    async userWithRole(role) {
      const email = `${role}-${++users}@example.com`;
      const created = await api.post<{ id: string }>(
        "/users",
        { email, password: PASSWORD, role },
        adminToken,
      );
      if (created.status !== 201) throw new Error(`user: ${created.status} ${JSON.stringify(created.body)}`);
      const login = await api.post<{ token: string }>("/auth/login", { email, password: PASSWORD });
      return { id: created.body.id, token: login.body.token };
    },
    async stop() {
      await context.shutdown.run("test done");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
