/** A small JSON client of the management API for tests: status, body, and the bearer token to use. */
export interface AdminAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export function adminClient(baseUrl: string) {
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<AdminAnswer<T>> {
    const response = await fetch(`${baseUrl}/api${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
  }
  return {
    call,
    get: <T = Record<string, unknown>>(path: string, token?: string) => call<T>("GET", path, { token }),
    post: <T = Record<string, unknown>>(path: string, body: unknown, token?: string) =>
      call<T>("POST", path, { body, token }),
    put: <T = Record<string, unknown>>(path: string, body: unknown, token?: string) =>
      call<T>("PUT", path, { body, token }),
    del: (path: string, token?: string) => call("DELETE", path, { token }),
  };
}

export type AdminClient = ReturnType<typeof adminClient>;
