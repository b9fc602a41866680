export { deriveJwtKey } from "./auth/jwt.js";
export type { AdminDeps } from "./deps.js";
export { registerAdminApi } from "./plugin.js";
