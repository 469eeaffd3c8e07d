/** A pi-tui Terminal that draws nowhere: for driving a TUI in-process (keys in, frames written to `frames`). */
export class SilentTerminal {
  columns = 100;
  rows = 30;
  /** Everything the TUI wrote, in order. */
  readonly frames: string[] = [];
  onInput: (data: string) => void = () => undefined;
  start(onInput: (data: string) => void): void {
    this.onInput = onInput;
  }
  stop(): void {}
  write(data: string): void {
    this.frames.push(data);
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  async drainInput(): Promise<void> {}
}
