// Small pieces every page uses: an error line, a loader hook, a JSON view.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describe } from './api';

export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  return <p class="error" role="alert">{describe(error)}</p>;
}

/** Runs `load` now and whenever `reload()` is called or `deps` change; keeps the last value and error. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value: T | undefined; error: unknown; reload: () => void } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (result) => { if (live) { setValue(result); setError(null); } },
      (failure) => { if (live) setError(failure); },
    );
    return () => { live = false; };
  }, [...deps, tick]);
  return { value, error, reload: useCallback(() => setTick((n) => n + 1), []) };
}

/** An action button's state: runs the action, shows its error, refreshes after it. */
export function useAction(after?: () => void): { run: (action: () => Promise<unknown>) => Promise<void>; error: unknown; busy: boolean } {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      after?.();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy };
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function time(ms: number | null | undefined): string {
  return ms ? new Date(ms).toLocaleString() : '—';
}

/** The text parts of a message's content. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: any) => (part.type === 'text' ? part.text : part.type === 'toolCall' ? `[${part.name} ${JSON.stringify(part.arguments)}]` : part.type === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
}
