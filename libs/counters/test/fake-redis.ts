import net from "node:net";

/**
 * Stand-ins for a broken Redis, for failure-mode tests that need no real server: a TCP server that
 * never answers, one that answers the handshake and then freezes, and a port nobody listens on.
 */
export interface FakeRedis {
  url: string;
  /** Stop answering; commands already received stay unanswered. */
  freeze(): void;
  close(): Promise<void>;
}

/** Parse one RESP command (an array of bulk strings) from the start of `buffer`; null if incomplete. */
function parseCommand(buffer: string): { args: string[]; length: number } | null {
  let lineEnd = buffer.indexOf("\r\n");
  if (!buffer.startsWith("*") || lineEnd < 0) return null;
  const count = Number(buffer.slice(1, lineEnd));
  let position = lineEnd + 2;
  const args: string[] = [];
  for (let index = 0; index < count; index++) {
    lineEnd = buffer.indexOf("\r\n", position);
    if (lineEnd < 0) return null;
    const start = lineEnd + 2;
    const length = Number(buffer.slice(position + 1, lineEnd));
    if (buffer.length < start + length + 2) return null;
    args.push(buffer.slice(start, start + length));
    position = start + length + 2;
  }
  return { args, length: position };
}

/** Just enough of Redis for ioredis to become ready: no RESP3, INFO says loaded, OK to the rest. */
function replyTo(command: string): string {
  if (command === "hello") return "-ERR unknown command 'HELLO'\r\n";
  if (command === "ping") return "+PONG\r\n";
  if (command === "info") {
    const info = "# Server\r\nredis_version:7.0.0\r\nloading:0\r\n";
    return `$${info.length}\r\n${info}\r\n`;
  }
  return "+OK\r\n";
}

/** A server on 127.0.0.1:<random>; `answering: false` accepts connections and never replies. */
export async function startFakeRedis(options: { answering: boolean }): Promise<FakeRedis> {
  let frozen = !options.answering;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (let command = parseCommand(buffer); command; command = parseCommand(buffer)) {
        buffer = buffer.slice(command.length);
        if (!frozen) socket.write(replyTo(command.args[0]?.toLowerCase() ?? ""));
      }
    });
  });
  const port = await listen(server);
  return {
    url: `redis://:fake-secret@127.0.0.1:${port}`,
    freeze: () => {
      frozen = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port that was free a moment ago and is closed now: connecting is refused at once. */
export async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `redis://127.0.0.1:${port}`;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}
