import type { CallContext } from "./types.js";

/**
 * The CallContext implementation shared by the gRPC server and the in-process client. Its AbortSignal
 * is only created when a handler first reads `signal`: creating one costs ~3 µs on Node 20 (more
 * than the whole rest of an in-process call) and most handlers never look at it. Aborting before
 * anyone read the signal just records the reason. A class rather than an object literal with a
 * getter, because per-call literal accessors measured ~0.4 µs slower.
 */
export class LazyCallContext implements CallContext {
  /** True once abort() was called, whether or not the signal exists yet. */
  aborted = false;
  private controller: AbortController | undefined = undefined;
  private abortReason: unknown = undefined;

  constructor(
    readonly deadline: number | undefined,
    readonly metadata: Record<string, string>,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
