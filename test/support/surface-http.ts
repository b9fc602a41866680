/** Shared by the proxy-surface checks: JSON headers with an optional Bearer token, a minimal chat body. */
export const json = (token: string | undefined, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  ...extra,
});
export const CHAT_BODY = JSON.stringify({ model: "m", messages: [{ role: "user", content: "ping" }] });
