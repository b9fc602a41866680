export { createRoutingHandlers } from "./handlers.js";
