import type { FastifyInstance } from "fastify";
import type { AdminDeps } from "./deps.js";
import { AdminErrors, renderAdminError } from "./errors.js";
import { installAdminHooks } from "./hooks.js";
import { installIdempotency } from "./idempotency.js";
import { collectRoutes, registerOpenApi } from "./openapi.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerCatalogRoutes } from "./routes/catalog.js";
import { registerIntegrationRoutes } from "./routes/integrations.js";
import { registerMeRoutes } from "./routes/me.js";
import { registerMetricsRoutes } from "./routes/metrics.js";
import { registerModelRoutes } from "./routes/models.js";
import { registerProjectRoutes } from "./routes/projects.js";
import { registerRoleRoutes } from "./routes/roles.js";
import { registerSettingsRoutes } from "./routes/settings.js";
import { registerSetupRoutes } from "./routes/setup.js";
import { registerSpendGroupRoutes } from "./routes/spend-groups.js";
import { registerUsageRoutes } from "./routes/usage.js";
import { registerUserRoutes } from "./routes/users.js";

/**
 * The management API under `/api`, as an encapsulated fastify plugin: its own error envelope,
 * authentication, permission checks and audit trail, mounted on ingress's app in standalone and on
 * admin-api's own server in distributed mode.
 */
export function registerAdminApi(app: FastifyInstance, deps: AdminDeps): void {
  // Not awaited: fastify loads registered plugins in order before the app is ready.
  void app.register(
    async (api) => {
      api.setErrorHandler((error, request, reply) => renderAdminError(error, request, reply));
      const routes = collectRoutes(api);
      installAdminHooks(api, deps);
      installIdempotency(api, deps);
      registerSetupRoutes(api, deps);
      registerAuthRoutes(api, deps);
      registerMeRoutes(api, deps);
      registerUserRoutes(api, deps);
      registerRoleRoutes(api, deps);
      registerModelRoutes(api, deps);
      registerProjectRoutes(api, deps);
      registerSpendGroupRoutes(api, deps);
      registerSettingsRoutes(api, deps);
      registerCatalogRoutes(api, deps);
      registerIntegrationRoutes(api, deps);
      registerMetricsRoutes(api, deps);
      registerUsageRoutes(api, deps);
      registerOpenApi(api, routes, deps.version);
      api.setNotFoundHandler({}, async (request) => {
        throw AdminErrors.notFound(`${request.method} ${request.url.split("?")[0]}`);
      });
    },
    { prefix: "/api" },
  );
}
