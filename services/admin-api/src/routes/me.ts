import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { hashPassword, verifyPassword } from "../auth/passwords.js";
import type { AdminDeps } from "../deps.js";
import { AdminError, AdminErrors } from "../errors.js";
import { revokeUserSessions } from "../users/sessions.js";
import { parseWith } from "../validate.js";
import { email, password } from "./schemas.js";
import { profileOf } from "./users.js";

const updateMe = z.strictObject({
  email: email.optional(),
  currentPassword: z.string().min(1, "is required to change your profile"),
  newPassword: password.optional(),
});

export function registerMeRoutes(api: FastifyInstance, deps: AdminDeps): void {
  api.get("/me", async (request) => {
    const user = await deps.prisma.user.findUnique({ where: { id: request.principal!.userId } });
    if (!user) throw AdminErrors.unauthenticated();
    return profileOf(user, request.principal!.permissions);
  });

  api.put("/me", { config: { body: updateMe, action: "profile:update" } }, async (request) => {
    const body = parseWith(updateMe, request.body);
    const principal = request.principal!;
    const user = await deps.prisma.user.findUnique({ where: { id: principal.userId } });
    if (!user) throw AdminErrors.unauthenticated();
    if (!(await verifyPassword(body.currentPassword, user.passwordHash)))
      throw new AdminError(400, "wrong_password", "currentPassword is not your current password.");
    const changed = [...(body.email ? ["email"] : []), ...(body.newPassword ? ["password"] : [])];
    request.auditDetails = { changed };
    if (body.email && body.email !== user.email) {
      const taken = await deps.prisma.user.findUnique({ where: { email: body.email } });
      if (taken) throw AdminErrors.conflict("Another account uses this email.");
    }
    const updated = await deps.prisma.user.update({
      where: { id: user.id },
      data: {
        ...(body.email ? { email: body.email } : {}),
        ...(body.newPassword ? { passwordHash: await hashPassword(body.newPassword) } : {}),
      },
    });
    // A new password ends every other session: a stolen refresh token stops working.
    if (body.newPassword) await revokeUserSessions(deps.prisma, user.id, new Date());
    return profileOf(updated, principal.permissions);
  });
}
