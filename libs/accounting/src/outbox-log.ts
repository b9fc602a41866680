import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
} from "node:fs";
import { dirname } from "node:path";

/**
 * The outbox's write-ahead log: one JSON line per queued message (`a`) and per acknowledged one
 * (`k`). Replaying it after a crash gives back every message that was queued and never acked.
 * Writes are synchronous appends so a record is on disk before the request's work is over.
 */
export interface OutboxEntry {
  id: string;
  subject: string;
  data: Uint8Array;
  /** Message headers (trace context), kept so a replayed publish still links to its trace. */
  headers?: Record<string, string>;
}

type Line = { a: string; s: string; d: string; h?: Record<string, string> } | { k: string };

export class OutboxLog {
  private fd: number;

  constructor(private readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, "a");
  }

  /** Entries queued and not acknowledged, in queue order. */
  replay(): OutboxEntry[] {
    if (!existsSync(this.path)) return [];
    const pending = new Map<string, OutboxEntry>();
    for (const text of readFileSync(this.path, "utf8").split("\n")) {
      if (text === "") continue;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        continue; // a torn last line from a crash mid-write: the message was never acknowledged to anyone
      }
      if ("a" in line) {
        const data = Buffer.from(line.d, "base64");
        pending.set(line.a, { id: line.a, subject: line.s, data, ...(line.h ? { headers: line.h } : {}) });
      } else pending.delete(line.k);
    }
    return [...pending.values()];
  }

  appendQueued(entry: OutboxEntry): void {
    const line: Line = {
      a: entry.id,
      s: entry.subject,
      d: Buffer.from(entry.data).toString("base64"),
      ...(entry.headers ? { h: entry.headers } : {}),
    };
    appendFileSync(this.fd, JSON.stringify(line) + "\n");
  }

  appendAcked(id: string): void {
    appendFileSync(this.fd, JSON.stringify({ k: id } satisfies Line) + "\n");
  }

  /** Called when nothing is pending: the log's content is all settled history. */
  compactIfLarge(maxBytes = 4 * 1024 * 1024): void {
    if (statSync(this.path).size > maxBytes) truncateSync(this.path, 0);
  }

  close(): void {
    closeSync(this.fd);
  }
}
