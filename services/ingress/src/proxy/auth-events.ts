import type { Outbox } from "@gw/accounting";
import { publishEvent } from "@gw/accounting";

/**
 * `auth.token_invalid` (warning): a token that does not exist was presented. Published through
 * the outbox like usage, so it survives a bus outage. The event names the token only by the first
 * 12 hex digits of its SHA-256 (never the value), and the client address. One event per distinct
 * token per minute per ingress: a client retrying a bad key in a loop must not flood the inbox.
 */
export interface AuthEvents {
  tokenInvalid(tokenHash: string, clientAddress: string): void;
}

const COOLDOWN_MS = 60_000;
const MAX_TRACKED = 10_000;

export function createAuthEvents(outbox: Outbox, now: () => number = Date.now): AuthEvents {
  const lastSent = new Map<string, number>();
  return {
    tokenInvalid(tokenHash, clientAddress) {
      const at = now();
      const previous = lastSent.get(tokenHash);
      if (previous !== undefined && at - previous < COOLDOWN_MS) return;
      if (lastSent.size >= MAX_TRACKED) lastSent.clear();
      lastSent.set(tokenHash, at);
      publishEvent(outbox, {
        event: "auth.token_invalid",
        severity: "warning",
        projectId: "",
        details: { tokenSha256Prefix: tokenHash.slice(0, 12), clientAddress },
        at,
      });
    },
  };
}
