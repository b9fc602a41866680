export { ROUTING_THROTTLED_EVENTS } from "./event-throttle.js";
export { createRoutingHandlers } from "./handlers.js";
export { createHealthStore } from "./health/index.js";
export { createLlmCaller } from "./llm-caller.js";
