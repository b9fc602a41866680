import { type BusMessage, DeadLetterHeaders, deadLetterSubject, type StreamDefinition } from "./bus.js";
import { DEFAULT_DUPLICATE_WINDOW_MS } from "./options.js";

/** The stream capturing every consumer's dead letters (`dlq.<stream>.<durable>`). */
export const DEAD_LETTER_STREAM: StreamDefinition = {
  name: "DLQ",
  subjects: ["dlq.>"],
  duplicateWindowMs: DEFAULT_DUPLICATE_WINDOW_MS,
};

/** What a dead letter records about the message it replaces. */
export interface DeadLetterInfo {
  subject: string;
  stream: string;
  durable: string;
  deliveries: number;
  error: string;
}

/** Header values may not carry line breaks on NATS; keep them short too. */
const MAX_ERROR_HEADER_LENGTH = 1_000;

/**
 * Headers of a dead-lettered message: the original headers, minus `Nats-*` ones (they are server
 * directives such as `Nats-Msg-Id`, which would dedupe dead letters of different durables against
 * each other in the DLQ stream), plus the `DeadLetterHeaders`.
 */
export function buildDeadLetterHeaders(
  original: Record<string, string>,
  info: DeadLetterInfo,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(original)) {
    if (!name.toLowerCase().startsWith("nats-")) headers[name] = value;
  }
  headers[DeadLetterHeaders.originalSubject] = info.subject;
  headers[DeadLetterHeaders.stream] = info.stream;
  headers[DeadLetterHeaders.durable] = info.durable;
  headers[DeadLetterHeaders.deliveries] = String(info.deliveries);
  headers[DeadLetterHeaders.error] = info.error.replace(/[\r\n]+/g, " ").slice(0, MAX_ERROR_HEADER_LENGTH);
  return headers;
}

/**
 * Idempotency key of a dead letter: if the process dies between publishing it and terminating the
 * original, the redelivered original dead-letters again and the DLQ stream drops the duplicate.
 */
export function deadLetterMsgId(stream: string, durable: string, seq: number): string {
  return `dlq:${stream}:${durable}:${seq}`;
}

/** A dead letter ready to publish. */
export interface DeadLetter {
  subject: string;
  data: Uint8Array;
  headers: Record<string, string>;
  msgId: string;
}

/** The dead letter replacing `message` of `stream`/`durable` after `deliveries` failed deliveries. */
export function deadLetterFor(
  message: Pick<BusMessage, "subject" | "data" | "headers" | "seq">,
  failure: Omit<DeadLetterInfo, "subject">,
): DeadLetter {
  const { stream, durable } = failure;
  return {
    subject: deadLetterSubject(stream, durable),
    data: message.data,
    headers: buildDeadLetterHeaders(message.headers, { ...failure, subject: message.subject }),
    msgId: deadLetterMsgId(stream, durable, message.seq),
  };
}
