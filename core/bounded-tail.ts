/**
 * Keeps the newest `limit` bytes of a stream of chunks (process output, a
 * server's stderr). What it drops is counted, so a caller can always say how
 * much was left out.
 */
export class BoundedTail {
  #chunks: Buffer[] = [];
  #bytes = 0;
  #dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#bytes > this.limit && this.#chunks.length > 0) {
      const first = this.#chunks[0]!;
      const excess = this.#bytes - this.limit;
      const cut = Math.min(first.length, excess);
      if (cut === first.length) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(cut);
      this.#bytes -= cut;
      this.#dropped += cut;
    }
  }

  /** Bytes dropped from the front so far. */
  get droppedBytes(): number {
    return this.#dropped;
  }

  /** The kept bytes as UTF-8; a character cut in half at the front is left out. */
  text(): string {
    const body = Buffer.concat(this.#chunks).toString('utf8');
    return this.#dropped > 0 ? body.replace(/^\uFFFD+/, '') : body;
  }
}
