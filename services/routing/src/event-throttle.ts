/** Routing events repeated for one project and model within a minute are dropped (no inbox floods). */
export const ROUTING_THROTTLED_EVENTS = ["routing.no_candidates"] as const;
