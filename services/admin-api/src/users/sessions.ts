import { newId, type PrismaClient } from "@gw/db";
import { signAccessToken } from "../auth/jwt.js";
import { generateRefreshToken, hashRefreshToken, REFRESH_TOKEN_TTL_MS } from "../auth/refresh-tokens.js";
import type { AdminDeps } from "../deps.js";
import { AdminError } from "../errors.js";
import { loadPrincipal, type Principal } from "./principal.js";

/** What login, refresh and first-admin answer (SPEC: `{ token, refreshToken, user }`). */
export interface SessionAnswer {
  token: string;
  refreshToken: string;
  user: { id: string; email: string; role: string; permissions: string[] };
}

/** A new access token and a refresh token in `familyId` (a new family at login). */
export async function issueSession(
  deps: AdminDeps,
  principal: Principal,
  familyId: string = newId("rtf"),
): Promise<SessionAnswer> {
  const now = (deps.now ?? Date.now)();
  const { token } = signAccessToken(
    {
      sub: principal.userId,
      email: principal.email,
      role: principal.role,
      permissions: principal.permissions,
    },
    deps.jwtKey,
    now,
  );
  const refresh = generateRefreshToken();
  await deps.prisma.refreshToken.create({
    data: {
      id: newId("rft"),
      userId: principal.userId,
      familyId,
      tokenHash: refresh.tokenHash,
      expiresAt: new Date(now + REFRESH_TOKEN_TTL_MS),
    },
  });
  return {
    token,
    refreshToken: refresh.token,
    user: {
      id: principal.userId,
      email: principal.email,
      role: principal.role,
      permissions: principal.permissions,
    },
  };
}

const refreshRefused = (code: string, message: string) => new AdminError(401, code, message);

/**
 * Rotation: a valid, unused token is spent (atomically: of two concurrent uses only one wins) and
 * the next one of its family is issued. A token used a second time means it leaked: the whole
 * family is revoked, so the thief's and the owner's sessions both end.
 */
export async function rotateRefreshToken(deps: AdminDeps, presented: string): Promise<SessionAnswer> {
  const { prisma } = deps;
  const now = new Date((deps.now ?? Date.now)());
  const stored = await prisma.refreshToken.findUnique({ where: { tokenHash: hashRefreshToken(presented) } });
  if (!stored) throw refreshRefused("invalid_refresh_token", "The refresh token is not valid.");
  if (stored.revokedAt) throw refreshRefused("revoked_refresh_token", "The refresh token was revoked.");
  if (stored.usedAt) {
    await revokeFamily(prisma, stored.familyId, now);
    throw refreshRefused(
      "reused_refresh_token",
      "The refresh token was already used: its whole session is revoked.",
    );
  }
  if (stored.expiresAt <= now)
    throw refreshRefused("expired_refresh_token", "The refresh token has expired.");
  const spent = await prisma.refreshToken.updateMany({
    where: { id: stored.id, usedAt: null, revokedAt: null },
    data: { usedAt: now },
  });
  if (spent.count !== 1) {
    await revokeFamily(prisma, stored.familyId, now);
    throw refreshRefused(
      "reused_refresh_token",
      "The refresh token was already used: its whole session is revoked.",
    );
  }
  const principal = await loadPrincipal(prisma, stored.userId);
  if (!principal)
    throw refreshRefused("invalid_refresh_token", "The account of this refresh token no longer exists.");
  return issueSession(deps, principal, stored.familyId);
}

export async function revokeFamily(prisma: PrismaClient, familyId: string, now: Date): Promise<void> {
  await prisma.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: now } });
}

/** Every session of a user ends (password change, role change, deletion). */
export async function revokeUserSessions(prisma: PrismaClient, userId: string, now: Date): Promise<void> {
  await prisma.refreshToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
}
