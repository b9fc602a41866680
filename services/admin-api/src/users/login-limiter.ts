import type { CounterStore } from "@gw/counters";
import { AdminError } from "../errors.js";

/**
 * Failed logins are counted per account and per client address over a sliding 15 minutes, in the
 * shared counter store (every replica sees the same counts): 5 failures lock the account, 30 the
 * address, until enough of them leave the window. Only failures count, so a user who signs in
 * correctly is never slowed down.
 */
const WINDOW = { bucketMs: 60_000, buckets: 16 };
const WINDOW_TTL_MS = WINDOW.bucketMs * (WINDOW.buckets + 1);
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;

function keys(email: string, address: string) {
  return [
    { key: `login-failures:account:${email}`, limit: MAX_FAILURES_PER_ACCOUNT },
    { key: `login-failures:address:${address}`, limit: MAX_FAILURES_PER_ADDRESS },
  ];
}

/** Refuse (429) before checking the password when either count is at its limit. */
export async function assertLoginAllowed(
  counters: CounterStore,
  email: string,
  address: string,
): Promise<void> {
  const checks = keys(email, address);
  const result = await counters.reserve(
    checks.map((check) => ({ key: check.key, amount: 0, limit: check.limit, sliding: WINDOW })),
  );
  if (!result.ok)
    throw new AdminError(
      429,
      "too_many_attempts",
      "Too many failed sign-ins for this account or address; try again in a few minutes.",
    );
}

export async function recordLoginFailure(
  counters: CounterStore,
  email: string,
  address: string,
): Promise<void> {
  await counters.add(
    keys(email, address).map((check) => ({
      key: check.key,
      amount: 1,
      sliding: WINDOW,
      ttlMs: WINDOW_TTL_MS,
    })),
  );
}
