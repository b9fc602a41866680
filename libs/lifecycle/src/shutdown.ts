/**
 * Graceful shutdown with named steps and one deadline. Steps run in registration order, so a main
 * registers them in the order that loses nothing: stop accepting work (HTTP server close waits for
 * in-flight requests), flush what was produced (outbox, publishes), drain consumers, then close
 * connections. A step that throws is logged and the next still runs. Past the deadline the process
 * exits with code 1; a second signal exits at once.
 */
export interface ShutdownLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface Shutdown {
  register(name: string, step: () => Promise<void> | void): void;
  /** Run every step once (idempotent); resolves when all finished or the deadline passed. */
  run(reason: string): Promise<void>;
  /** Install SIGTERM/SIGINT handlers that run the steps and exit. */
  installSignalHandlers(): void;
  readonly stopping: boolean;
}

export interface ShutdownOptions {
  logger: ShutdownLogger;
  timeoutMs: number;
  /** Called after the steps (or at the deadline) with the exit code; default process.exit. */
  exit?: (code: number) => void;
}

export function createShutdown(options: ShutdownOptions): Shutdown {
  const steps: { name: string; step: () => Promise<void> | void }[] = [];
  let running: Promise<void> | undefined;
  const exit = options.exit ?? ((code: number) => process.exit(code));

  async function runSteps(reason: string): Promise<boolean> {
    const started = Date.now();
    options.logger.info({ reason, steps: steps.map((s) => s.name) }, "shutting down");
    let clean = true;
    for (const { name, step } of steps) {
      try {
        await step();
        options.logger.info({ step: name, elapsedMs: Date.now() - started }, "shutdown step done");
      } catch (error) {
        clean = false;
        options.logger.error({ step: name, err: error }, "shutdown step failed");
      }
    }
    return clean;
  }

  const shutdown: Shutdown = {
    get stopping() {
      return running !== undefined;
    },
    register(name, step) {
      steps.push({ name, step });
    },
    run(reason) {
      if (running) return running;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          options.logger.warn({ timeoutMs: options.timeoutMs }, "shutdown deadline passed");
          resolve(false);
        }, options.timeoutMs);
      });
      running = Promise.race([runSteps(reason), deadline]).then((clean) => {
        clearTimeout(timer);
        if (!clean) process.exitCode = 1;
      });
      return running;
    },
    installSignalHandlers() {
      const onSignal = (signal: NodeJS.Signals) => {
        if (running) {
          options.logger.warn({ signal }, "second signal: exiting now");
          exit(1);
          return;
        }
        void shutdown.run(signal).then(() => exit(process.exitCode === 1 ? 1 : 0));
      };
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
    },
  };
  return shutdown;
}
