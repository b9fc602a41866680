export {
  createRoutingModelCaller,
  DEFAULT_ROUTING_TIMEOUT_MS,
  type RoutingModelDeps,
  type RoutingModelUsage,
} from "./caller.js";
export { parseRanking } from "./parse-ranking.js";
export {
  ANSWER_FORMAT,
  buildRoutingRequest,
  candidateTable,
  DEFAULT_ROUTING_PROMPT,
  ROUTING_MAX_TOKENS,
  type RoutingPromptInput,
  routingSystemPrompt,
  routingUserMessage,
} from "./prompt.js";
