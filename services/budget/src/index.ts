export { createBudgetHandlers } from "./handlers.js";
export { RESERVATION_TTL_MS } from "./reservations.js";
