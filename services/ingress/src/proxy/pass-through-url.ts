/**
 * The upstream URL of a pass-through request: the model's base URL origin plus the client's path
 * and query. When the base already ends with the path's leading version segment (`/v1`,
 * `/v1beta`), it is not doubled: base `https://api.openai.com/v1` + `/v1/embeddings` ->
 * `https://api.openai.com/v1/embeddings`; base `https://api.anthropic.com` + `/v1/messages/batches`
 * -> `https://api.anthropic.com/v1/messages/batches`. The host always comes from the model's
 * configuration, never from the request, so a client cannot steer the proxy elsewhere.
 */
export function passThroughUrl(base: string, pathAndQuery: string): string {
  const baseUrl = new URL(base);
  const basePath = baseUrl.pathname.replace(/\/+$/, "");
  const lastSegment = basePath.slice(basePath.lastIndexOf("/"));
  const path = pathAndQuery.startsWith("/") ? pathAndQuery : `/${pathAndQuery}`;
  const repeats =
    lastSegment !== "" &&
    (path === lastSegment || path.startsWith(`${lastSegment}/`) || path.startsWith(`${lastSegment}?`));
  const prefix = repeats ? basePath.slice(0, -lastSegment.length) : basePath;
  const target = new URL(baseUrl.origin);
  // Assigned as text after the origin: `//host` in the client's path cannot become an authority.
  return `${target.origin}${prefix}${path}`;
}

/** Reserved paths are never proxied (SPEC.md "Pass-through proxy"). */
export function isReservedPath(path: string): boolean {
  return (
    path === "/" ||
    path === "/health" ||
    path === "/health/ready" ||
    path === "/api" ||
    path.startsWith("/api/") ||
    path.startsWith("/dashboard")
  );
}
