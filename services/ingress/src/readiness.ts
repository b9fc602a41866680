/** How long a readiness probe waits for a channel to (re)connect before calling it not ready. */
const READINESS_WAIT_MS = 250;

/**
 * The readiness check of a distributed ingress: the names of the gRPC dependencies whose channel
 * cannot become ready within a short wait (a probe must answer fast, and a dependency that is
 * listening connects in milliseconds).
 */
export function grpcReadiness(
  clients: Record<string, { waitForReady(timeoutMs: number): Promise<void> }>,
): () => Promise<string[]> {
  return async () => {
    const results = await Promise.all(
      Object.entries(clients).map(([name, client]) =>
        client.waitForReady(READINESS_WAIT_MS).then(
          () => null,
          () => name,
        ),
      ),
    );
    return results.filter((name): name is string => name !== null);
  };
}
