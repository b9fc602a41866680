export { createEventPublisher, type EventPublisher } from "./events.js";
export { createRoutingHandlers } from "./handlers.js";
export { createHealthStore } from "./health/index.js";
export { createLlmCaller } from "./llm-caller.js";
