import type { BusMessage, Subscription, WatchHandler } from "./bus.js";
import type { BusLogger } from "./logger.js";
import type { StoredMessage } from "./memory-store.js";
import { subjectMatches } from "./subject-match.js";

/**
 * One `watch()` of the memory bus: the stream offers it every message it stores (after the watch
 * was attached); matching ones are queued and handed to the handler one at a time, in sequence
 * order. Never in `publish()`'s own call stack: delivery starts in a microtask, like the consumers'.
 */
export class MemoryWatcher implements Subscription {
  private queue: BusMessage[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly streamName: string,
    private readonly filterSubject: string | undefined,
    private readonly handler: WatchHandler,
    private readonly logger: BusLogger,
    private readonly onStop: (watcher: MemoryWatcher) => void,
  ) {}

  /** A message was stored in the stream. */
  offer(stored: StoredMessage): void {
    if (this.stopped) return;
    if (this.filterSubject !== undefined && !subjectMatches(this.filterSubject, stored.subject)) return;
    this.queue.push({
      subject: stored.subject,
      data: stored.data,
      headers: { ...stored.headers },
      deliveryCount: 1,
      seq: stored.seq,
    });
    this.running ??= this.drain();
  }

  /** Drop what is queued, then wait for the handler running now (if any). */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.queue = [];
      this.onStop(this);
    }
    await this.running;
  }

  private async drain(): Promise<void> {
    await Promise.resolve();
    for (;;) {
      const message = this.stopped ? undefined : this.queue.shift();
      if (!message) break;
      try {
        await this.handler(message);
      } catch (error) {
        this.logger.error(
          { err: error, stream: this.streamName, subject: message.subject, seq: message.seq },
          "bus watch handler failed",
        );
      }
    }
    // Synchronously after the last empty check: an offer() from here on starts a new drain.
    this.running = undefined;
  }
}
