/**
 * A parsed YAML file that can say which line a value came from, so every
 * Flow error names file and line.
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node, type Scalar } from 'yaml';

/** A YAML document with line lookup. */
export class YamlSource {
  readonly doc: Document;
  readonly #lines = new LineCounter();

  constructor(text: string) {
    this.doc = parseDocument(text, { lineCounter: this.#lines, prettyErrors: false, uniqueKeys: true });
  }

  /** Syntax errors with their lines. */
  syntaxErrors(): Array<{ line: number; message: string }> {
    return this.doc.errors.map((error) => ({ line: this.lineAt(error.pos[0]), message: error.message.split('\n')[0]! }));
  }

  lineAt(offset: number): number {
    return this.#lines.linePos(offset).line;
  }

  /** The line of the value at `path`, else of its key, else of the nearest ancestor. */
  lineOf(path: ReadonlyArray<PropertyKey>): number | undefined {
    let current: unknown = this.doc.contents;
    let line = rangeStart(current) === undefined ? undefined : this.lineAt(rangeStart(current)!);
    for (const key of path) {
      let viaKey = false;
      if (isMap(current)) {
        viaKey = true;
        const pair = current.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(key));
        if (!pair) return line;
        const keyStart = rangeStart(pair.key);
        if (keyStart !== undefined) line = this.lineAt(keyStart);
        current = pair.value;
      } else if (isSeq(current) && typeof key === 'number') {
        current = current.items[key];
      } else {
        return line;
      }
      const start = rangeStart(current);
      if (start !== undefined && !(viaKey && isMap(current))) line = this.lineAt(start);
    }
    return line;
  }

  /**
   * The line of a character inside the string scalar at `path`. Exact for
   * block scalars (`|`), whose lines map one to one; otherwise the scalar's line.
   */
  lineInString(path: ReadonlyArray<PropertyKey>, offset: number): number | undefined {
    const node = this.doc.getIn(path as unknown[], true) as Scalar | undefined;
    const start = rangeStart(node);
    if (!node || start === undefined) return this.lineOf(path);
    const line = this.lineAt(start);
    if (node.type !== 'BLOCK_LITERAL' || typeof node.value !== 'string') return line;
    return line + 1 + (node.value.slice(0, offset).match(/\n/g)?.length ?? 0);
  }
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | undefined)?.range?.[0];
}
