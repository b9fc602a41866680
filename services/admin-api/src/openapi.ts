import type { FastifyInstance, RouteOptions } from "fastify";
import type { AdminRouteConfig } from "./hooks.js";

/**
 * `GET /api/openapi.json`: an OpenAPI 3.1 document of every management route, collected as the
 * routes are registered, so it cannot drift from what is served: path, method, whether a token is
 * needed, the permission (`x-permission`), the audit action (`x-audit-action`) and the error
 * envelope. Request and response bodies are described in SPEC.md; they are not yet generated
 * from the zod schemas here.
 */
interface CollectedRoute {
  method: string;
  url: string;
  config: AdminRouteConfig;
}

export function collectRoutes(api: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  api.addHook("onRoute", (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD" || route.url.includes("*")) continue;
      routes.push({
        method: method.toLowerCase(),
        url: route.url,
        config: (route.config ?? {}) as AdminRouteConfig,
      });
    }
  });
  return routes;
}

export function registerOpenApi(api: FastifyInstance, routes: CollectedRoute[], version: string): void {
  api.get("/openapi.json", { config: { public: true } }, async () => openApiDocument(routes, version));
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
});

export function openApiDocument(routes: CollectedRoute[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const { permission, action } = route.config;
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: `${route.method}${path.replace(/[^A-Za-z0-9]+/g, "_")}`,
      summary: action ?? `${route.method.toUpperCase()} ${path}`,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.config.public ? { security: [] } : {}),
      ...(permission ? { "x-permission": permission } : {}),
      ...(action ? { "x-audit-action": action } : {}),
      responses: {
        "2XX": { description: "Success (201 on create, 204 on delete)" },
        "400": errorResponse("Invalid body or query; the message names the field"),
        ...(route.config.public ? {} : { "401": errorResponse("Missing, invalid or expired access token") }),
        ...(permission ? { "403": errorResponse(`Needs ${permission}`) } : {}),
        "404": errorResponse("Not found"),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "LLM gateway management API", version },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        ErrorEnvelope: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["message", "type", "code"],
              properties: { message: { type: "string" }, type: { type: "string" }, code: { type: "string" } },
            },
          },
        },
      },
    },
    paths,
  };
}
