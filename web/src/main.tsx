// The dashboard: logs in with the one-time link's token (the URL fragment, never sent
// to a server in a URL), then shows the page the hash names for the chosen group.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, hello, login, logout, type Hello } from './api';
import { ErrorLine } from './ui';
import { ApprovalsPage } from './pages/approvals';
import { ChatPage } from './pages/chat';
import { GroupsPage } from './pages/groups';
import { MemoryPage } from './pages/memory';
import { SchedulesPage } from './pages/schedules';
import { SessionsPage } from './pages/sessions';
import { StatusPage } from './pages/status';
import { WorkersPage } from './pages/workers';
import './style.css';

interface Page {
  path: string;
  title: string;
  /** The gateway method the page needs; the page is hidden when hello does not list it. */
  needs: string;
  view: (props: { group: string; hello: Hello }) => preact.JSX.Element;
}

/** The usage page carries the chart library (uPlot): it loads on first visit, so the chat ships without it. */
function UsagePage(props: { group: string; hello: Hello }) {
  const [View, setView] = useState<Page['view'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    import('./pages/usage').then((module) => setView(() => module.UsagePage), setError);
  }, []);
  return View ? <View {...props} /> : error ? <ErrorLine error={error} /> : <p>Loading…</p>;
}

const PAGES: Page[] = [
  { path: 'chat', title: 'Chat', needs: 'prompt', view: ChatPage },
  { path: 'groups', title: 'Groups', needs: 'group.list', view: GroupsPage },
  { path: 'sessions', title: 'Sessions', needs: 'session.list', view: SessionsPage },
  { path: 'approvals', title: 'Approvals', needs: 'approvals.list', view: ApprovalsPage },
  { path: 'usage', title: 'Usage', needs: 'usage.summary', view: UsagePage },
  { path: 'schedules', title: 'Schedules', needs: 'schedule.list', view: SchedulesPage },
  { path: 'memory', title: 'Memory', needs: 'memory.search', view: MemoryPage },
  { path: 'workers', title: 'Workers', needs: 'workers.list', view: WorkersPage },
  { path: 'status', title: 'Extensions & channels', needs: 'gateway.status', view: StatusPage },
];

const route = (): string => (location.hash.startsWith('#/') ? location.hash.slice(2).split('?')[0] : 'chat');

/** A login link's token is a bare fragment (#<43 characters>); pages are #/name. */
function tokenInHash(): string | null {
  const match = /^#([A-Za-z0-9_-]{43})$/.exec(location.hash);
  return match ? match[1] : null;
}

function App() {
  const [info, setInfo] = useState<Hello | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [path, setPath] = useState(route());
  const [groups, setGroups] = useState<string[]>([]);
  const [group, setGroup] = useState(localStorage.getItem('xdog.group') ?? '');

  useEffect(() => {
    const onHash = (): void => setPath(route());
    addEventListener('hashchange', onHash);
    (async () => {
      const token = tokenInHash();
      if (token) {
        // Drop the token from the address bar and history before anything else: it works once anyway.
        history.replaceState(null, '', '#/chat');
        setPath('chat');
        try {
          await login(token);
        } catch (failure) {
          setError(failure);
        }
      }
      const answer = await hello();
      setInfo(answer);
      if (answer) {
        const list = await call<Array<{ name: string }>>('group.list');
        setGroups(list.map((entry) => entry.name));
        setGroup((current) => (list.some((entry) => entry.name === current) ? current : (list[0]?.name ?? '')));
      }
    })().catch(setError);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (group) localStorage.setItem('xdog.group', group);
  }, [group]);

  if (info === undefined) return <main><ErrorLine error={error} />{error ? null : <p>Loading…</p>}</main>;
  if (info === null) {
    return (
      <main class="login">
        <h1>xdog claw</h1>
        <ErrorLine error={error} />
        <p>You are not logged in. Run <code>xdog claw web open</code> on the machine the dashboard runs on and open the link it prints (each link works once).</p>
      </main>
    );
  }
  const pages = PAGES.filter((page) => info.methods.includes(page.needs));
  const page = pages.find((entry) => entry.path === path) ?? pages[0];
  const View = page.view;
  return (
    <>
      <header>
        <strong class="brand">xdog claw</strong>
        <nav aria-label="pages">
          {pages.map((entry) => (
            <a href={`#/${entry.path}`} aria-current={entry === page ? 'page' : undefined}>{entry.title}</a>
          ))}
        </nav>
        <label class="group-pick">
          group{' '}
          <select value={group} onChange={(event) => setGroup((event.target as HTMLSelectElement).value)}>
            {groups.map((name) => <option value={name}>{name}</option>)}
          </select>
        </label>
        <button class="link" onClick={() => void logout().then(() => location.reload())}>log out</button>
      </header>
      {info.web.exposed ? <p class="warning" role="status">This dashboard listens on {info.web.host}, not only on this machine. Share login links only over a channel you trust.</p> : null}
      <ErrorLine error={error} />
      <main>{group ? <View key={`${page.path}:${group}`} group={group} hello={info} /> : <p>The gateway has no groups.</p>}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
