import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { CanonicalRequest, ContentPart } from "../canonical/types.js";

/**
 * Input-token counting without an inference call, with a real BPE tokenizer (`gpt-tokenizer`,
 * OpenAI's o200k_base encoding, the one of the gpt-4o / gpt-4.1 / o-series families).
 *
 * Exact for the text of OpenAI o200k models; for other kinds it is an estimate (their tokenizers
 * are not public or not in npm): see docs/TOKENS.md for the measured closeness per kind. The
 * chat framing overhead follows OpenAI's published counting recipe (3 tokens per message, 3 to
 * prime the reply); images are counted as one high-detail 512 px tile set (765 tokens), the
 * figure OpenAI documents for a 1024 x 1024 image, since their size is unknown without decoding.
 */

// User text may contain strings such as "<|endoftext|>": count them as text, never throw.
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING = 3;
export const IMAGE_TOKENS_ESTIMATE = 765;

export function countTextTokens(text: string): number {
  return text === "" ? 0 : countTokens(text, AS_TEXT);
}

export function countRequestTokens(request: CanonicalRequest): number {
  let total = REPLY_PRIMING;
  if (request.system) total += TOKENS_PER_MESSAGE + countTextTokens(request.system);
  for (const message of request.messages) {
    total += TOKENS_PER_MESSAGE;
    for (const part of message.content) total += partTokens(part);
  }
  if (request.tools && request.tools.length > 0) total += countTextTokens(JSON.stringify(request.tools));
  if (request.responseFormat?.type === "json_schema")
    total += countTextTokens(JSON.stringify(request.responseFormat.schema));
  return total;
}

function partTokens(part: ContentPart): number {
  switch (part.type) {
    case "text":
      return countTextTokens(part.text);
    case "image":
      return IMAGE_TOKENS_ESTIMATE;
    case "tool_call":
      return countTextTokens(part.name) + countTextTokens(part.arguments);
    case "tool_result":
      return part.content.reduce((sum, inner) => sum + partTokens(inner), 0);
  }
}
