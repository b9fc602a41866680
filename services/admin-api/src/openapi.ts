import type { FastifyInstance, RouteOptions } from "fastify";
import { z } from "zod";
import type { AdminRouteConfig } from "./hooks.js";

/**
 * `GET /api/openapi.json`: an OpenAPI 3.1 document of every management route, collected as the
 * routes are registered, so it cannot drift from what is served: path, method, whether a token is
 * needed, the permission (`x-permission`), the audit action (`x-audit-action`) and the error
 * envelope, and the request body and query schemas converted from the very zod schemas the
 * handlers parse with (`config.body`, `config.querystring`). Response bodies are described in
 * SPEC.md, not here.
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

/** JSON Schema of what a client sends (the input side of transforms); never fails the document. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    return rest;
  } catch {
    return { type: "object", description: "see SPEC.md" };
  }
}

function queryParameters(schema: z.ZodType): Record<string, unknown>[] {
  const json = jsonSchemaOf(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

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
    const { permission, action, body, querystring } = route.config;
    const query = querystring ? queryParameters(querystring) : [];
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: `${route.method}${path.replace(/[^A-Za-z0-9]+/g, "_")}`,
      summary: action ?? `${route.method.toUpperCase()} ${path}`,
      ...(parameters.length + query.length > 0 ? { parameters: [...parameters, ...query] } : {}),
      ...(body
        ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchemaOf(body) } } } }
        : {}),
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
