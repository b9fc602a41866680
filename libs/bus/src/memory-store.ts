import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { BusLogger } from "./logger.js";

/** A message as the memory bus stores it. */
export interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers: Record<string, string>;
  /** Epoch ms when stored. */
  timestamp: number;
  msgId?: string;
}

/** A remembered `msgId`: [msgId, seq, timestamp]. */
export type DedupeEntry = [string, number, number];

/** What a stream file holds after a restart. */
export interface StreamSnapshot {
  lastSeq: number;
  messages: StoredMessage[];
  dedupe: DedupeEntry[];
}

/** What an acks file holds after a restart. */
export interface DurableSnapshot {
  durable: string;
  filterSubject: string | undefined;
  /** Stream sequences acked or terminated by this durable. */
  settled: Set<number>;
}

interface MessageLine {
  seq: number;
  subject: string;
  data: string;
  headers: Record<string, string>;
  ts: number;
  msgId?: string;
}

interface MetaLine {
  meta: { lastSeq: number; dedupe: DedupeEntry[] };
}

/**
 * Append-only files of one stream under `<dataDir>/bus/`:
 * - `<STREAM>.jsonl`: one JSON line per stored message (data base64); after a compaction the file
 *   starts with a meta line carrying the last sequence and the live `msgId`s, so sequences and
 *   dedupe survive the rewrite;
 * - `<STREAM>.<durable>.acks`: `f <filter>` (durable created, filter changed), `a <seq>` (acked),
 *   `t <seq>` (terminated after dead-lettering).
 * Writes are synchronous so a publish or ack that returned is on disk (page cache) before anyone
 * observes it; a crash loses nothing a caller saw succeed.
 */
export class StreamFiles {
  private readonly streamPath: string;
  /** Records appended since the last compaction; compaction is skipped while it is small. */
  recordsSinceCompaction = 0;
  private readonly fds = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly stream: string,
    private readonly logger: BusLogger,
  ) {
    mkdirSync(dir, { recursive: true });
    this.streamPath = join(dir, `${stream}.jsonl`);
  }

  loadStream(): StreamSnapshot {
    const snapshot: StreamSnapshot = { lastSeq: 0, messages: [], dedupe: [] };
    for (const line of this.readLines(this.streamPath)) {
      try {
        const parsed = JSON.parse(line) as MessageLine | MetaLine;
        if ("meta" in parsed) {
          snapshot.lastSeq = Math.max(snapshot.lastSeq, parsed.meta.lastSeq);
          snapshot.dedupe.push(...parsed.meta.dedupe);
          continue;
        }
        snapshot.messages.push({
          seq: parsed.seq,
          subject: parsed.subject,
          data: new Uint8Array(Buffer.from(parsed.data, "base64")),
          headers: parsed.headers,
          timestamp: parsed.ts,
          msgId: parsed.msgId,
        });
        snapshot.lastSeq = Math.max(snapshot.lastSeq, parsed.seq);
        this.recordsSinceCompaction++;
      } catch {
        this.logger.warn({ stream: this.stream, file: this.streamPath }, "skipping unreadable bus record");
      }
    }
    return snapshot;
  }

  loadDurables(): DurableSnapshot[] {
    const prefix = `${this.stream}.`;
    const durables: DurableSnapshot[] = [];
    for (const file of readdirSync(this.dir)) {
      if (!file.startsWith(prefix) || !file.endsWith(".acks")) continue;
      const snapshot: DurableSnapshot = {
        durable: file.slice(prefix.length, -".acks".length),
        filterSubject: undefined,
        settled: new Set(),
      };
      for (const line of this.readLines(join(this.dir, file))) {
        const kind = line.slice(0, 2);
        const value = line.slice(2);
        if (kind === "f ") snapshot.filterSubject = value === "" ? undefined : value;
        else if ((kind === "a " || kind === "t ") && /^\d+$/.test(value)) snapshot.settled.add(Number(value));
      }
      durables.push(snapshot);
    }
    return durables;
  }

  appendMessage(message: StoredMessage): void {
    const line: MessageLine = {
      seq: message.seq,
      subject: message.subject,
      data: Buffer.from(message.data).toString("base64"),
      headers: message.headers,
      ts: message.timestamp,
      ...(message.msgId === undefined ? {} : { msgId: message.msgId }),
    };
    this.append(this.streamPath, `${JSON.stringify(line)}\n`);
    this.recordsSinceCompaction++;
  }

  /** Remember a durable (and its filter) even before it acks anything: it holds back compaction. */
  recordDurable(durable: string, filterSubject: string | undefined): void {
    this.append(this.acksPath(durable), `f ${filterSubject ?? ""}\n`);
  }

  appendSettled(durable: string, seq: number, kind: "ack" | "term"): void {
    this.append(this.acksPath(durable), `${kind === "ack" ? "a" : "t"} ${seq}\n`);
  }

  /**
   * Every known durable settled every message: replace the stream file by a meta line and the acks
   * files by their filter line. Each file is rewritten atomically (write + rename); the stream file
   * goes first, so a crash in between leaves acks for sequences that no longer exist, which are
   * harmless.
   */
  compact(
    lastSeq: number,
    dedupe: DedupeEntry[],
    durables: Array<{ durable: string; filterSubject: string | undefined }>,
  ): void {
    const meta: MetaLine = { meta: { lastSeq, dedupe } };
    this.replaceFile(this.streamPath, `${JSON.stringify(meta)}\n`);
    for (const { durable, filterSubject } of durables) {
      this.replaceFile(this.acksPath(durable), `f ${filterSubject ?? ""}\n`);
    }
    this.recordsSinceCompaction = 0;
    this.logger.debug({ stream: this.stream, lastSeq }, "compacted bus stream file");
  }

  private acksPath(durable: string): string {
    return join(this.dir, `${this.stream}.${durable}.acks`);
  }

  /** Close the append descriptors (the bus is closing). */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  /**
   * Append through a descriptor kept open per file: reopening the path on every write cost three
   * open/close pairs per message on the standalone hot path.
   */
  private append(path: string, text: string): void {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, "a");
      this.fds.set(path, fd);
    }
    appendFileSync(fd, text);
  }

  private replaceFile(path: string, content: string): void {
    // The rename swaps the file under an open descriptor: drop it so the next append opens the new one.
    const fd = this.fds.get(path);
    if (fd !== undefined) {
      closeSync(fd);
      this.fds.delete(path);
    }
    const temporary = `${path}.tmp`;
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  }

  /**
   * Complete lines of a file. A trailing fragment without newline is a write torn by a crash: it is
   * ignored, and a newline is appended so the next record does not glue onto it.
   */
  private readLines(path: string): string[] {
    if (!existsSync(path)) return [];
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const fragment = lines.pop();
    if (fragment !== undefined && fragment !== "") {
      this.logger.warn({ file: path }, "ignoring torn bus record at end of file");
      appendFileSync(path, "\n");
    }
    return lines.filter((line) => line !== "");
  }
}
