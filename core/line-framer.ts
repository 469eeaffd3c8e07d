/**
 * Splits a byte stream into newline-terminated lines (NDJSON framing) with a
 * hard cap on one line. A line that grows past the cap is reported once, as
 * soon as it crosses the cap, and the rest of it is discarded up to the next
 * newline: it is never held whole, and the lines after it are read as usual.
 */

const NEWLINE = 0x0a;

/** What the framer reports; both callbacks run synchronously inside `push`. */
export interface LineFramerEvents {
  /** One complete line, without its newline (and without a trailing `\r`). Empty lines are skipped. */
  line(line: Buffer): void;
  /** A line went over `maxLineBytes`; `seenBytes` is how much of it had arrived then. */
  oversized(seenBytes: number): void;
}

export class LineFramer {
  readonly #maxLineBytes: number;
  readonly #events: LineFramerEvents;
  /** The partial line held between chunks: never more than `maxLineBytes` in total. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of an oversized line. */
  #discarding = false;

  constructor(maxLineBytes: number, events: LineFramerEvents) {
    this.#maxLineBytes = maxLineBytes;
    this.#events = events;
  }

  /** Bytes of the current partial line held in memory. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#discarding) {
        if (newline !== -1) this.#discarding = false;
      } else if (this.#pendingBytes + piece.length > this.#maxLineBytes) {
        const seen = this.#pendingBytes + piece.length;
        this.#reset();
        this.#discarding = newline === -1;
        this.#events.oversized(seen);
      } else if (newline === -1) {
        // Copy: the caller may reuse its chunk buffer.
        this.#pending.push(Buffer.from(piece));
        this.#pendingBytes += piece.length;
      } else {
        const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
        this.#reset();
        this.#emit(line);
      }
      start = end + 1;
    }
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #emit(line: Buffer): void {
    const trimmed = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line;
    if (trimmed.length === 0) return;
    this.#events.line(trimmed);
  }
}
