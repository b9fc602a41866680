/**
 * A small TTL cache with single-flight loading: concurrent misses for one key share one load, so
 * a burst of requests with a new token costs one database query. Bounded: the oldest entries go
 * first when `maxEntries` is reached.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number; now?: () => number }) {}

  /** `ttlMs` may depend on the loaded value (e.g. a shorter life for "not found"). */
  async get(
    key: string,
    load: () => Promise<V>,
    ttlMs: number | ((value: V) => number) = this.options.ttlMs,
  ): Promise<V> {
    const now = (this.options.now ?? Date.now)();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const promise = load()
      .then((value) => {
        if (this.entries.size >= this.options.maxEntries) {
          const oldest = this.entries.keys().next().value;
          if (oldest !== undefined) this.entries.delete(oldest);
        }
        this.entries.delete(key);
        const life = typeof ttlMs === "function" ? ttlMs(value) : ttlMs;
        this.entries.set(key, { value, expiresAt: (this.options.now ?? Date.now)() + life });
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
