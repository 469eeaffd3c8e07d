/**
 * Typing into one very long line of pi-tui's editor stays fast. The editor
 * wraps the whole line again at every frame (and at every cursor move up or
 * down), segmenting all of its graphemes: with 20,000 typed characters that
 * made each frame tens of milliseconds and a typed line take half a minute.
 *
 * Here the wrap of each line is cached and, when a line changed (typing,
 * deleting), only its tail is wrapped again: the chunks that end well
 * before the first changed character are the same, because the greedy
 * wrap decides a chunk's end from at most the next chunk's text, and a
 * wrap restarted at a chunk's start reaches the same state (see `wrapLine`).
 * The editor's two layout users (`layoutText` for drawing, `buildVisualLineMap`
 * for cursor moves) are replaced on the instance with versions that read
 * this cache; what they return is what pi-tui 0.73.1's own code returns.
 */
import { Editor, visibleWidth } from '@mariozechner/pi-tui';
import { wordWrapLine, type TextChunk } from '@mariozechner/pi-tui/dist/components/editor.js';

interface LayoutLine {
  text: string;
  hasCursor: boolean;
  cursorPos?: number;
}

interface VisualLine {
  logicalLine: number;
  startCol: number;
  length: number;
}

/** The editor's private parts this module reads (pi-tui 0.73.1). */
interface EditorInternals {
  state: { lines: string[]; cursorLine: number; cursorCol: number };
  pastes: Map<number, string>;
  segment(text: string): Iterable<Intl.SegmentData>;
  layoutText(width: number): LayoutLine[];
  buildVisualLineMap(width: number): VisualLine[];
}

/** Below this width a single segment may be wider than a chunk, and the wrap is not restartable. */
const MIN_INCREMENTAL_WIDTH = 8;

interface CachedWrap {
  line: string;
  width: number;
  chunks: TextChunk[];
}

/** Length of the common start of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Wraps `line` to `width` as `wordWrapLine` does, reusing `previous` (the
 * wrap of an earlier version of the line). Chunk k's end is decided while
 * scanning at most up to the start of chunk k+2 (plus one segment of
 * look-ahead), so chunks whose k+2 neighbour starts before the first changed
 * character stay; from the first other chunk's start a fresh wrap reaches
 * the state the full wrap had there (no wrap opportunity lies between a
 * chunk's start and the position where it was cut).
 */
export function wrapLine(line: string, width: number, segment: (text: string) => Iterable<Intl.SegmentData>, previous: CachedWrap | undefined, restartable: boolean): TextChunk[] {
  const full = (): TextChunk[] => wordWrapLine(line, width, [...segment(line)]);
  if (!previous || !restartable || previous.width !== width || width < MIN_INCREMENTAL_WIDTH) return full();
  if (previous.line === line) return previous.chunks;
  const changedAt = commonPrefix(previous.line, line);
  let keep = 0;
  while (keep + 2 < previous.chunks.length && previous.chunks[keep + 2]!.startIndex + 1 < changedAt) keep++;
  if (keep === 0) return full();
  const restart = previous.chunks[keep]!.startIndex;
  const tail = line.slice(restart);
  const rest = wordWrapLine(tail, width, [...segment(tail)]).map((chunk) => ({ text: chunk.text, startIndex: chunk.startIndex + restart, endIndex: chunk.endIndex + restart }));
  return [...previous.chunks.slice(0, keep), ...rest];
}

/** Installs the cached layout on `editor` (one cache per logical line index). */
export function installFastLayout(editor: Editor): void {
  const inner = editor as unknown as EditorInternals;
  const cache = new Map<number, CachedWrap>();
  const chunksOf = (index: number, line: string, width: number): TextChunk[] => {
    // A paste marker is one segment that may be wider than a chunk: then the plain wrap.
    const chunks = wrapLine(line, width, (text) => inner.segment(text), cache.get(index), inner.pastes.size === 0);
    cache.set(index, { line, width, chunks });
    return chunks;
  };
  const prune = (lines: number): void => {
    for (const index of cache.keys()) if (index >= lines) cache.delete(index);
  };

  inner.layoutText = (width: number): LayoutLine[] => {
    const { lines, cursorLine, cursorCol } = inner.state;
    prune(lines.length);
    if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return [{ text: '', hasCursor: true, cursorPos: 0 }];
    const out: LayoutLine[] = [];
    lines.forEach((line = '', index) => {
      const current = index === cursorLine;
      if (visibleWidth(line) <= width) {
        out.push(current ? { text: line, hasCursor: true, cursorPos: cursorCol } : { text: line, hasCursor: false });
        return;
      }
      const chunks = chunksOf(index, line, width);
      chunks.forEach((chunk, at) => {
        const last = at === chunks.length - 1;
        // The cursor is in the chunk that holds its column; in trimmed trailing space it sits at the chunk's end.
        const inside = current && (last ? cursorCol >= chunk.startIndex : cursorCol >= chunk.startIndex && cursorCol < chunk.endIndex);
        out.push(inside ? { text: chunk.text, hasCursor: true, cursorPos: last ? cursorCol - chunk.startIndex : Math.min(cursorCol - chunk.startIndex, chunk.text.length) } : { text: chunk.text, hasCursor: false });
      });
    });
    return out;
  };

  inner.buildVisualLineMap = (width: number): VisualLine[] => {
    const { lines } = inner.state;
    prune(lines.length);
    const out: VisualLine[] = [];
    lines.forEach((line = '', index) => {
      if (line.length === 0 || visibleWidth(line) <= width) out.push({ logicalLine: index, startCol: 0, length: line.length });
      else for (const chunk of chunksOf(index, line, width)) out.push({ logicalLine: index, startCol: chunk.startIndex, length: chunk.endIndex - chunk.startIndex });
    });
    return out;
  };
}
