// Full-text search of a group's durable memory (memory.search).
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorLine, time, useAction } from '../ui';

export function MemoryPage({ group }: { group: string }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<any[] | null>(null);
  const action = useAction();
  return (
    <section aria-label="memory">
      <h1>Memory</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => setResults((await call<{ results: any[] }>('memory.search', { group, query })).results));
        }}
      >
        <label>Search <input type="search" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} /></label> <button type="submit">Search</button>
      </form>
      <ErrorLine error={action.error} />
      {results ? (results.length ? (
        <ol class="results">{results.map((item) => <li key={item.id}><p>{item.text}</p><small>#{item.id} · {time(item.createdAt)}</small></li>)}</ol>
      ) : <p>No memory matches.</p>) : null}
    </section>
  );
}
