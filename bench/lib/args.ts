/** Command-line options of the spine bench, bounded so a typo cannot start an endless run. */
export interface BenchArgs {
  /** Measured sequential calls per target (after the warm-up). */
  calls: number;
  warmup: number;
  /** Streamed calls per target for time-to-first-byte. */
  ttfbCalls: number;
  /** Length of the saturation run, seconds. */
  seconds: number;
  connections: number;
  /** Open-loop rate of the fixed-rate run, requests per second, and its length, seconds. */
  rate: number;
  rateSeconds: number;
  /** Pin with taskset when it is available. */
  pin: boolean;
  /** Write CPU profiles of the distributed children here (node --cpu-prof). */
  cpuProfDir?: string;
}

export function parseArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const args: BenchArgs = {
    calls: 500,
    warmup: 200,
    ttfbCalls: 200,
    seconds: 5,
    connections: 16,
    rate: 200,
    rateSeconds: 5,
    pin: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const raw = argv[++i];
      const n = Number(raw);
      if (raw === undefined || !Number.isFinite(n) || n <= 0)
        throw new Error(`${flag} needs a positive number`);
      return n;
    };
    if (flag === "--calls") args.calls = Math.min(Math.round(value()), 100_000);
    else if (flag === "--warmup") args.warmup = Math.min(Math.round(value()), 100_000);
    else if (flag === "--ttfb-calls") args.ttfbCalls = Math.min(Math.round(value()), 100_000);
    else if (flag === "--seconds") args.seconds = Math.min(value(), 120);
    else if (flag === "--connections") args.connections = Math.min(Math.round(value()), 256);
    else if (flag === "--rate") args.rate = Math.min(Math.round(value()), 20_000);
    else if (flag === "--rate-seconds") args.rateSeconds = Math.min(value(), 120);
    else if (flag === "--no-pin") args.pin = false;
    else if (flag === "--cpu-prof-dir") args.cpuProfDir = argv[++i];
    else if (flag === "--help" || flag === "-h") {
      console.log(
        "usage: npm run bench -- [--calls N] [--warmup N] [--ttfb-calls N] [--seconds S] [--connections C] [--rate R] [--rate-seconds S] [--no-pin] [--cpu-prof-dir DIR]",
      );
      process.exit(0);
    } else throw new Error(`unknown option ${flag}`);
  }
  return args;
}
