export { chatMessagesText, countFakeTokens } from "./fake-tokens.js";
export {
  type FakeBehaviour,
  type FakeUpstream,
  type RecordedRequest,
  startFakeUpstream,
} from "./fake-upstream.js";
export { type Child, freePort, spawnNode, waitForHealth } from "./processes.js";
export { waitFor } from "./wait-for.js";
