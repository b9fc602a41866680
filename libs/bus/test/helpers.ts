import { randomBytes } from "node:crypto";
import type { BusLogger } from "../src/index.js";

/** Lower-case alphanumeric id for unique stream names and subjects. */
export function randomId(): string {
  return randomBytes(6).toString("hex");
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `condition` every 10 ms; fail with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await delay(10);
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface LogEntry {
  level: "info" | "warn" | "error" | "debug";
  obj: object;
  msg: string | undefined;
}

/** A `BusLogger` that keeps what it is given, for tests that check what was logged. */
export function recordingLogger(): BusLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (obj: object, msg?: string): void => {
      entries.push({ level, obj, msg });
    };
  return { entries, info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") };
}
