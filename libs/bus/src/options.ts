import type { ConsumerOptions } from "./bus.js";

/** NATS' own default dedupe window; the memory bus uses the same. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/** Consumer options with every default filled in. */
export type ResolvedConsumerOptions = Required<Omit<ConsumerOptions, "filterSubject">> & {
  filterSubject: string | undefined;
};

/** Fill the documented defaults of `ConsumerOptions` and reject values that cannot work. */
export function resolveConsumerOptions(options: ConsumerOptions): ResolvedConsumerOptions {
  assertValidName("stream", options.stream);
  assertValidName("durable", options.durable);
  const resolved: ResolvedConsumerOptions = {
    stream: options.stream,
    durable: options.durable,
    filterSubject: options.filterSubject,
    maxDeliver: options.maxDeliver ?? 5,
    ackWaitMs: options.ackWaitMs ?? 30_000,
    maxInFlight: options.maxInFlight ?? 64,
    nakDelayMs: options.nakDelayMs ?? 1_000,
  };
  if (!Number.isInteger(resolved.maxDeliver) || resolved.maxDeliver < 1) {
    throw new Error(`maxDeliver must be a positive integer, got ${resolved.maxDeliver}`);
  }
  if (!Number.isInteger(resolved.maxInFlight) || resolved.maxInFlight < 1) {
    throw new Error(`maxInFlight must be a positive integer, got ${resolved.maxInFlight}`);
  }
  if (!(resolved.ackWaitMs > 0)) throw new Error(`ackWaitMs must be > 0, got ${resolved.ackWaitMs}`);
  if (!(resolved.nakDelayMs >= 0)) throw new Error(`nakDelayMs must be >= 0, got ${resolved.nakDelayMs}`);
  return resolved;
}

/**
 * Stream and durable names follow NATS rules (no `.`, `*`, `>`, whitespace or path separators);
 * the memory bus also uses them in file names, so the same check protects both.
 */
export function assertValidName(kind: string, name: string): void {
  if (name.length === 0 || /[.*>\s/\\]/.test(name)) {
    throw new Error(`invalid ${kind} name "${name}": must be non-empty without . * > / \\ or whitespace`);
  }
}

/** Reject with `message` when `promise` has not settled after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Error text of anything thrown, for logs and dead-letter headers. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
