/**
 * A key is drawn at once. pi-tui 0.73 (the version pinned here) draws at
 * most one frame per 16 ms and a key's frame waits its turn, so while a
 * reply streams (a frame was nearly always just drawn) a key waited 0–16 ms
 * to show: bench/tui-open measured 8–10 ms median against pi 1.6's 3 ms,
 * whose TUI renders a key immediately. This does the same: after the key is
 * handled, the frame it asked for is drawn on the next tick instead of after
 * the throttle. Streaming output stays throttled (it does not come through here).
 */
import type { TUI } from '@mariozechner/pi-tui';

/** The scheduler fields of pi-tui 0.73's TUI this relies on (the dependency is pinned exactly). */
interface RenderState {
  renderTimer?: ReturnType<typeof setTimeout>;
  renderRequested: boolean;
  lastRenderAt: number;
  stopped: boolean;
  doRender(): void;
}

export function renderKeysAtOnce(tui: TUI): void {
  const state = tui as unknown as RenderState & { handleInput(data: string): void };
  const handle = state.handleInput.bind(tui);
  state.handleInput = (data: string) => {
    handle(data);
    // After pi-tui's own tick (which may just have armed the throttle timer): draw now instead.
    process.nextTick(() => {
      if (state.stopped || !state.renderRequested) return;
      if (state.renderTimer) clearTimeout(state.renderTimer);
      state.renderTimer = undefined;
      state.renderRequested = false;
      state.lastRenderAt = performance.now();
      state.doRender();
    });
  };
}
