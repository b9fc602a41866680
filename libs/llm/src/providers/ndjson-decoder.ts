/**
 * Incremental newline-delimited JSON parser (Ollama's streaming body: one JSON object per line).
 * Chunks may split a line anywhere, so the text after the last newline waits for the next chunk.
 * Blank lines are skipped and `\r\n` endings tolerated; a line that is not JSON throws, naming the
 * line, because a half-understood stream must not be billed or relayed as if it were complete.
 */
export class NdjsonDecoder {
  private buffer = "";

  push(chunk: string): unknown[] {
    const text = this.buffer + chunk;
    const lastNewline = text.lastIndexOf("\n");
    if (lastNewline < 0) {
      this.buffer = text;
      return [];
    }
    this.buffer = text.slice(lastNewline + 1);
    return text.slice(0, lastNewline).split("\n").flatMap(parseLine);
  }

  /** The body ended: a last line without its newline still counts. */
  end(): unknown[] {
    const rest = this.buffer;
    this.buffer = "";
    return parseLine(rest);
  }
}

function parseLine(raw: string): unknown[] {
  const line = raw.trim();
  if (line === "") return [];
  try {
    return [JSON.parse(line)];
  } catch {
    const shown = line.length > 120 ? `${line.slice(0, 120)}...` : line;
    throw new SyntaxError(`NDJSON stream: line is not JSON: ${shown}`);
  }
}
