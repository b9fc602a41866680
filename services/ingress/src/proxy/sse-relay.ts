import type { ServerResponse } from "node:http";
import type { CallUsage } from "./usage.js";
import { usageFromOpenAi } from "./usage.js";

/**
 * Relays an upstream chat-completions SSE stream to the client chunk by chunk (no buffering: each
 * upstream chunk is written as soon as it arrives) while watching it for the usage chunk and the
 * produced text, so a stream that ends early is still billed for what was produced.
 */
export interface StreamTally {
  usage: CallUsage | undefined;
  /** Characters of content seen, for estimating output when the stream ends without usage. */
  contentChars: number;
  sawDone: boolean;
}

export async function relaySse(
  upstream: AsyncIterable<Buffer>,
  client: ServerResponse,
  tally: StreamTally,
): Promise<void> {
  let carry = "";
  for await (const chunk of upstream) {
    if (client.destroyed) break;
    client.write(chunk);
    const text = carry + chunk.toString("utf8");
    const lastBreak = text.lastIndexOf("\n");
    carry = lastBreak === -1 ? text : text.slice(lastBreak + 1);
    if (lastBreak !== -1) inspectLines(text.slice(0, lastBreak), tally);
  }
  if (carry) inspectLines(carry, tally);
}

function inspectLines(text: string, tally: StreamTally): void {
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const payload = line.slice(5).trim();
    if (payload === "[DONE]") {
      tally.sawDone = true;
      continue;
    }
    // Parse only lines that can matter: usage, or content we may need to estimate from.
    const hasUsage = payload.includes('"usage":{');
    if (!hasUsage && !payload.includes('"content"')) continue;
    try {
      const event = JSON.parse(payload) as { usage?: unknown; choices?: { delta?: { content?: unknown } }[] };
      if (hasUsage) tally.usage = usageFromOpenAi(event.usage) ?? tally.usage;
      const content = event.choices?.[0]?.delta?.content;
      if (typeof content === "string") tally.contentChars += content.length;
    } catch {
      // A malformed upstream line is relayed as is; it just does not count.
    }
  }
}
