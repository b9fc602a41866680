export { anthropicError, summarizeAnthropic } from "./anthropic-wire.js";
export { cohereError, summarizeCohere } from "./cohere-wire.js";
export { modelConfig, projectConfig, tokenConfig } from "./config-fixtures.js";
export type { FakeBehaviour, FakeKind, RecordedRequest } from "./fake-behaviour.js";
export {
  decideReply,
  type FakeReply,
  type FakeToolCall,
  type RequestSummary,
  truncateToTokens,
} from "./fake-reply.js";
export { type StreamFrame, sendJson, sendStream, sse } from "./fake-stream.js";
export { chatMessagesText, countFakeTokens } from "./fake-tokens.js";
export { type FakeUpstream, fakeBaseUrl, kindOf, startFakeUpstream } from "./fake-upstream.js";
export { geminiError, summarizeGemini } from "./gemini-wire.js";
export * from "./metric-receivers/index.js";
export { ollamaError, summarizeOllama } from "./ollama-wire.js";
export { openAiError, summarizeOpenAiChat } from "./openai-chat-wire.js";
export { type Child, freePort, spawnNode, waitForHealth } from "./processes.js";
export { seededRandom } from "./seeded-random.js";
export { waitFor } from "./wait-for.js";
export { parseNdjson, parseSse, type SseEvent } from "./wire-parse.js";
