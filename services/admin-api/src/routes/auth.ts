import { publishEvent } from "@gw/accounting";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { verifyAgainstDummy, verifyPassword } from "../auth/passwords.js";
import type { AdminDeps } from "../deps.js";
import { AdminError } from "../errors.js";
import { assertLoginAllowed, recordLoginFailure } from "../users/login-limiter.js";
import { loadPrincipal } from "../users/principal.js";
import { issueSession, rotateRefreshToken } from "../users/sessions.js";
import { parseWith } from "../validate.js";
import { credentials } from "./schemas.js";

const refreshBody = z.strictObject({ refreshToken: z.string().min(1, "is required") });

const badCredentials = () => new AdminError(401, "invalid_credentials", "Wrong email or password.");

export function registerAuthRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.post("/auth/login", { config: { body: credentials, public: true } }, async (request) => {
    const body = parseWith(credentials, request.body);
    await assertLoginAllowed(deps.counters, body.email, request.ip);
    const user = await deps.prisma.user.findUnique({ where: { email: body.email } });
    // An unknown email costs the same hashing time as a wrong password: no account enumeration.
    const ok = user
      ? await verifyPassword(body.password, user.passwordHash)
      : await verifyAgainstDummy(body.password);
    if (!user || !ok) {
      await recordLoginFailure(deps.counters, body.email, request.ip);
      if (user)
        publishEvent(deps.outbox, {
          event: "auth.login_failed",
          severity: "warning",
          projectId: "",
          details: { userId: user.id, email: user.email, clientAddress: request.ip },
        });
      throw badCredentials();
    }
    const principal = await loadPrincipal(deps.prisma, user.id);
    if (!principal) throw badCredentials();
    return issueSession(deps, principal);
  });

  api.post("/auth/refresh", { config: { public: true, body: refreshBody } }, async (request) => {
    const body = parseWith(refreshBody, request.body);
    return rotateRefreshToken(deps, body.refreshToken);
  });
}
