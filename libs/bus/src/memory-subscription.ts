import type { MessageHandler, Subscription } from "./bus.js";

/** One `consume()` call on the memory bus: a handler with its own in-flight bound. */
export class MemorySubscription implements Subscription {
  /** Handlers of this subscription running now. */
  active = 0;
  stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly maxInFlight: number,
    readonly handler: MessageHandler,
    private readonly onStop: (subscription: MemorySubscription) => void,
  ) {}

  hasCapacity(): boolean {
    return !this.stopped && this.active < this.maxInFlight;
  }

  handlerStarted(): void {
    this.active++;
  }

  handlerFinished(): void {
    this.active--;
    if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Stop taking messages, then wait until every handler already running has finished. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.onStop(this);
    }
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }
}
