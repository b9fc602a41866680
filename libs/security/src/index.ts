export { decryptSecret, encryptSecret, loadOrCreateKeyFile, parseSecretKey } from "./secrets.js";
export {
  digestsEqual,
  generateProjectToken,
  hashToken,
  PROJECT_TOKEN_PREFIX,
  randomBase62,
  tokenDisplayPrefix,
} from "./tokens.js";
export {
  assertFetchableUrl,
  guardedLookup,
  isMetadataAddress,
  metadataUrlsAllowed,
  UrlRefusedError,
} from "./url-guard.js";
