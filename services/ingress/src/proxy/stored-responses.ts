import type { PrismaClient } from "@gw/db";
import { GatewayError } from "@gw/errors";
import type { CanonicalMessage, CanonicalResponse } from "@gw/llm";

/**
 * Stored `/v1/responses` answers, for `previous_response_id`. A row keeps the whole conversation
 * up to and including that response (canonical messages), so a follow-up needs one lookup however
 * long the chain. Rows are in the database, not in one process, so any ingress replica can
 * continue a conversation another one started. Lookups are scoped to the project.
 */
export interface ResponseStore {
  /** The conversation of a stored response; 400 when unknown (the shape OpenAI answers with). */
  conversation(id: string, projectId: string): Promise<CanonicalMessage[]>;
  save(id: string, projectId: string, messages: CanonicalMessage[]): Promise<void>;
  /** Delete responses stored before `before`; returns how many went. */
  deleteStoredBefore(before: Date): Promise<number>;
}

/** As long as OpenAI keeps a stored response: a follow-up after this gets "not found". */
export const STORED_RESPONSE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export function createResponseStore(prisma: PrismaClient): ResponseStore {
  return {
    async conversation(id, projectId) {
      const row = await prisma.storedResponse.findUnique({ where: { id } });
      if (!row || row.projectId !== projectId) {
        throw new GatewayError({
          code: "previous_response_not_found",
          type: "invalid_request_error",
          status: 400,
          message: `Previous response with id '${id.slice(0, 100)}' not found.`,
        });
      }
      return row.messages as unknown as CanonicalMessage[];
    },
    async deleteStoredBefore(before) {
      const { count } = await prisma.storedResponse.deleteMany({ where: { createdAt: { lt: before } } });
      return count;
    },
    async save(id, projectId, messages) {
      await prisma.storedResponse.create({
        data: { id, projectId, messages: messages as unknown as object },
      });
    },
  };
}

/** The assistant turn a response adds to the conversation. */
export function assistantMessage(response: CanonicalResponse): CanonicalMessage {
  return { role: "assistant", content: response.content };
}

/**
 * Deletes expired stored responses at start and then hourly. Every replica may run it: the delete
 * is idempotent and served by the `createdAt` index. Returns the stop function.
 */
export function scheduleResponseCleanup(
  store: ResponseStore,
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
  options: { intervalMs?: number; now?: () => number } = {},
): () => void {
  const now = options.now ?? Date.now;
  const run = () =>
    store
      .deleteStoredBefore(new Date(now() - STORED_RESPONSE_RETENTION_MS))
      .then((count) => {
        if (count > 0) logger.info({ count }, "expired stored responses deleted");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "deleting expired stored responses failed"));
  void run();
  const timer = setInterval(run, options.intervalMs ?? 60 * 60 * 1000).unref();
  return () => clearInterval(timer);
}
