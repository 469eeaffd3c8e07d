/**
 * The daemon's one headless Chromium (Debian's, driven by playwright-core)
 * and its named targets: open pages several agents share. Chromium starts at
 * the first page anyone needs and stops with the daemon. Every page is
 * bounded: a navigation or an action that overruns its time, or a renderer
 * that dies (its heap is capped), kills the page and marks its target
 * crashed; the daemon keeps serving. Downloads are refused.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { networkGuard, urlProblem } from './policy.js';

/** What a page may load: the daemon's allowed hosts and the workspace of whoever navigated it. */
export interface PagePolicy {
  allowHosts: readonly string[];
  workspace: string;
}

/** One console error, uncaught exception, failed request, HTTP error or crash. */
export interface PageEvent {
  at: number;
  kind: 'console' | 'pageerror' | 'requestfailed' | 'http' | 'crash' | 'refused';
  text: string;
}

interface Target {
  name: string;
  page: Page;
  policy: PagePolicy;
  status: 'open' | 'crashed';
  problem: string | null;
  events: PageEvent[];
  dropped: number;
}

/** The Chromium executable: XDOG_CHROMIUM, else Debian's. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDOG_CHROMIUM ?? '/usr/bin/chromium';
}

const LAUNCH_ARGS = [
  '--no-sandbox', // as root Chromium needs it; the daemon's policy and bounds are the guard (docs/eyes.md)
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  `--js-flags=--max-old-space-size=${LIMITS.eyesPageHeapMiB}`,
];

export class EyesBrowser {
  readonly #allowHosts: readonly string[];
  readonly #log: (line: string) => void;
  readonly #targets = new Map<string, Target>();
  /** The policy of every page, for the request guard (private watch pages included). */
  readonly #policies = new WeakMap<Page, PagePolicy>();
  #starting: Promise<BrowserContext> | undefined;
  #browser: Browser | undefined;

  constructor(options: { allowHosts: readonly string[]; log: (line: string) => void }) {
    this.#allowHosts = options.allowHosts;
    this.#log = options.log;
  }

  get running(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  /** The pid of Chromium's browser process (a child of this process), if it runs. */
  browserPid(): number | null {
    if (!this.running) return null;
    return (childrenByParent().get(process.pid) ?? []).find((pid) => /chrom/.test(commOf(pid))) ?? null;
  }

  targets(): Array<{ name: string; url: string; status: 'open' | 'crashed'; problem: string | null }> {
    return [...this.#targets.values()].map((target) => ({ name: target.name, url: target.status === 'open' ? target.page.url() : '', status: target.status, problem: target.problem }));
  }

  /** The target `name`, opened when missing (LIMIT_EXCEEDED over LIMITS.eyesTargets); a crashed one is replaced by a fresh page. */
  async target(name: string, policy: PagePolicy): Promise<Target> {
    const existing = this.#targets.get(name);
    if (existing?.status === 'open' && !existing.page.isClosed()) {
      existing.policy = policy;
      this.#policies.set(existing.page, policy);
      return existing;
    }
    if (!existing && this.#targets.size >= LIMITS.eyesTargets) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `Eyes already keeps ${LIMITS.eyesTargets} targets, its limit`, { hint: 'close one with eyes_close (see `xdog eyes status`)' });
    }
    const page = await this.#newPage(policy);
    const target: Target = { name, page, policy, status: 'open', problem: null, events: existing?.events ?? [], dropped: existing?.dropped ?? 0 };
    if (existing) this.#record(target, 'crash', `the target was reopened after: ${existing.problem ?? 'its page closed'}`);
    this.#targets.set(name, target);
    this.#watchEvents(target);
    return target;
  }

  /** The target `name` as it is; NOT_FOUND when there is none, INVALID_STATE when it crashed. */
  existing(name: string): Target {
    const target = this.#targets.get(name);
    if (!target) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no Eyes target "${name}"`, { hint: 'open it with eyes_look and a url' });
    return target;
  }

  /** Navigates a target (the URL checked first, and the page's final URL after), bounded by LIMITS.eyesNavigationMs. */
  async navigate(target: Target, url: string): Promise<void> {
    const problem = urlProblem(url, target.policy);
    if (problem) throw refused(url, problem);
    try {
      await this.#bounded(target, 'loading the page', LIMITS.eyesNavigationMs, target.page.goto(url, { waitUntil: 'load', timeout: 0 }));
    } catch (error) {
      if (XdogError.is(error)) throw error;
      const message = describeError(error);
      const blocked = /ERR_PROXY_CONNECTION_FAILED|ERR_BLOCKED_BY_CLIENT/.test(message);
      const download = /Download is starting/.test(message);
      throw new XdogError(ErrorCodes.TOOL_FAILED, download ? `${url} is a download, and Eyes refuses downloads` : blocked ? `Eyes refused to load ${url}: ${this.#lastRefusal(target) ?? 'it (or a redirect) leads to a host that is not allowed (loopback and eyes.allow_hosts only)'}` : `${url} did not load: ${message.split('\n')[0]}`, {
        hint: blocked ? 'the user may add the host to eyes.allow_hosts (then `xdog eyes stop` so the daemon restarts with it)' : download ? 'open a page, not a file to download' : 'check that the server runs and the URL is right',
      });
    }
    this.assertAllowed(target);
  }

  /** Refuses a page whose current URL the policy does not allow (a script may have navigated it). */
  assertAllowed(target: Target): void {
    this.assertOpen(target);
    const problem = urlProblem(target.page.url(), target.policy);
    if (problem) {
      void target.page.goto('about:blank').catch(() => undefined);
      throw refused(target.page.url(), problem);
    }
  }

  assertOpen(target: Target): void {
    if (target.status === 'crashed' || target.page.isClosed()) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the Eyes target "${target.name}" crashed: ${target.problem ?? 'its page closed'}`, { hint: 'open it again with eyes_look and a url, or close it with eyes_close' });
    }
  }

  /** Runs one action on a page, bounded by LIMITS.eyesActionMs (an overrun kills the page). */
  act<T>(target: Target, what: string, work: Promise<T>): Promise<T> {
    return this.#bounded(target, what, LIMITS.eyesActionMs, work);
  }

  /** The events since the last call, and how many were dropped over the bound. */
  drainEvents(name: string): { events: PageEvent[]; dropped: number } {
    const target = this.existing(name);
    const drained = { events: target.events.splice(0), dropped: target.dropped };
    target.dropped = 0;
    return drained;
  }

  async close(name: string): Promise<boolean> {
    const target = this.#targets.get(name);
    if (!target) return false;
    this.#targets.delete(name);
    await closePage(target.page);
    return true;
  }

  /** A private page for one watch check, closed by `use`'s end. */
  async withPage<T>(policy: PagePolicy, use: (page: Page, bound: <R>(what: string, ms: number, work: Promise<R>) => Promise<R>) => Promise<T>): Promise<T> {
    const page = await this.#newPage(policy);
    const crashed = new Promise<never>((_, reject) => page.once('crash', () => reject(new XdogError(ErrorCodes.TOOL_FAILED, 'the page crashed (it may have used too much memory)'))));
    crashed.catch(() => undefined);
    const bound = <R>(what: string, ms: number, work: Promise<R>): Promise<R> => Promise.race([work, crashed, timeout<R>(ms, `${what} took longer than ${ms / 1000} s`)]);
    try {
      return await use(page, bound);
    } finally {
      await closePage(page);
    }
  }

  /** Closes Chromium; one that does not close in time (a hung renderer) is killed with its children. */
  async stop(): Promise<void> {
    const browser = this.#browser;
    if (!browser) return;
    const pid = this.browserPid();
    const children = pid ? descendants(pid) : [];
    this.#browser = undefined;
    this.#starting = undefined;
    this.#targets.clear();
    const closed = await Promise.race([
      browser.close().then(
        () => true,
        (error: unknown) => (this.#log(`closing Chromium: ${describeError(error)}`), false),
      ),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS).unref()),
    ]);
    if (closed) return;
    this.#log(`Chromium did not close within ${STOP_GRACE_MS / 1000} s; killing it`);
    for (const child of [pid, ...children]) {
      try {
        if (child) process.kill(child, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  async #context(): Promise<BrowserContext> {
    // One launch however many pages ask at once; a Chromium that ended is launched again.
    if (this.#starting) return this.#starting;
    this.#starting = this.#launch();
    this.#starting.catch(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #launch(): Promise<BrowserContext> {
    const executablePath = chromiumPath();
    if (!fs.existsSync(executablePath)) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `there is no Chromium at ${executablePath}`, { hint: 'install Debian\'s chromium (`apt-get install chromium`) or point XDOG_CHROMIUM at one' });
    }
    // The CommonJS entry, required: its exports are all there whatever the ESM loader's static analysis of it finds.
    const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
    const browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS, proxy: networkGuard(this.#allowHosts), timeout: LIMITS.eyesEnsureMs });
    this.#browser = browser;
    browser.on('disconnected', () => {
      if (this.#browser !== browser) return;
      this.#log('Chromium disconnected; it starts again at the next page');
      this.#browser = undefined;
      this.#starting = undefined;
      for (const target of this.#targets.values()) this.#crash(target, 'Chromium ended');
    });
    const context = await browser.newContext({ acceptDownloads: false, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    // Every request a page makes meets the policy of that page (redirects meet the network guard).
    await context.route('**/*', (route) => this.#guard(route));
    this.#log(`Chromium started (pid ${this.browserPid() ?? '?'})`);
    return context;
  }

  async #newPage(policy: PagePolicy): Promise<Page> {
    const context = await this.#context();
    const page = await context.newPage();
    this.#policies.set(page, policy);
    page.on('download', (download) => void download.cancel().catch(() => undefined));
    return page;
  }

  #guard(route: Route): Promise<void> {
    const request = route.request();
    const page = request.frame().page();
    const policy = this.#policies.get(page);
    const problem = policy ? urlProblem(request.url(), policy) : 'the page has no policy';
    if (!problem) return route.continue().catch(() => undefined);
    const target = [...this.#targets.values()].find((candidate) => candidate.page === page);
    if (target) this.#record(target, 'refused', `refused ${request.url().slice(0, 300)}: ${problem}`);
    return route.abort('blockedbyclient').catch(() => undefined);
  }

  #watchEvents(target: Target): void {
    const { page } = target;
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') this.#record(target, 'console', `${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.#record(target, 'pageerror', `uncaught ${error.name}: ${error.message}`));
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'net::ERR_BLOCKED_BY_CLIENT') this.#record(target, 'requestfailed', `${request.method()} ${request.url()} failed: ${request.failure()?.errorText ?? 'unknown'}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) this.#record(target, 'http', `${response.status()} ${response.statusText()} for ${response.request().method()} ${response.url()}`);
    });
    page.on('crash', () => this.#crash(target, 'the page crashed (it may have used more than its memory bound)'));
    page.on('close', () => {
      if (target.status === 'open' && this.#targets.get(target.name) === target && !this.#closing.has(page)) this.#crash(target, 'its page closed');
    });
  }

  readonly #closing = new WeakSet<Page>();

  #crash(target: Target, problem: string): void {
    if (target.status === 'crashed') return;
    target.status = 'crashed';
    target.problem = problem;
    this.#record(target, 'crash', problem);
    this.#log(`target ${target.name} crashed: ${problem}`);
  }

  #record(target: Target, kind: PageEvent['kind'], text: string): void {
    if (target.events.length >= LIMITS.eyesConsoleEvents) {
      target.events.shift();
      target.dropped++;
    }
    target.events.push({ at: Date.now(), kind, text: text.length > LIMITS.eyesConsoleEventChars ? `${text.slice(0, LIMITS.eyesConsoleEventChars)} … (${text.length} characters)` : text });
  }

  #lastRefusal(target: Target): string | undefined {
    return target.events.findLast((event) => event.kind === 'refused')?.text;
  }

  /** Races `work` against a deadline and the page's crash; either kills the page and marks the target crashed. */
  async #bounded<T>(target: Target, what: string, ms: number, work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    let onCrash: (() => void) | undefined;
    const crashed = new Promise<never>((_, reject) => {
      onCrash = () => reject(new XdogError(ErrorCodes.TOOL_FAILED, `the page of target "${target.name}" crashed while ${what} (it may have used more than its ${LIMITS.eyesPageHeapMiB} MiB memory bound); the target is marked crashed`, { hint: 'open it again with eyes_look and a url once the page is fixed' }));
      target.page.once('crash', onCrash);
    });
    crashed.catch(() => undefined);
    try {
      return await Promise.race([work, crashed, timeout<T>(ms, '')]);
    } catch (error) {
      if (XdogError.is(error) && error.message === '') {
        const problem = `${what} took longer than ${ms / 1000} s (the page may loop); its page was killed`;
        this.#crash(target, problem);
        this.#closing.add(target.page);
        await closePage(target.page);
        throw new XdogError(ErrorCodes.TOOL_FAILED, `the Eyes target "${target.name}": ${problem}`, { hint: 'fix the page, then open it again with eyes_look and a url' });
      }
      throw error;
    } finally {
      if (onCrash) target.page.off('crash', onCrash);
    }
  }
}

/** How long a closing Chromium gets before it is killed. */
const STOP_GRACE_MS = 5000;

/** Every process's children, from /proc. */
function childrenByParent(): Map<number, number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Ended while we looked.
    }
  }
  return parents;
}

function commOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8');
  } catch {
    return '';
  }
}

/** The pids below `pid`, from /proc. */
function descendants(pid: number): number[] {
  const parents = childrenByParent();
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

function refused(url: string, problem: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_ARGUMENT, `Eyes refused ${url.slice(0, 300)}: ${problem}`, {
    hint: 'the user may add the host to eyes.allow_hosts in the config (then `xdog eyes stop` so the daemon restarts with it)',
  });
}

function timeout<T>(ms: number, message: string): Promise<T> {
  return new Promise<T>((_, reject) => setTimeout(() => reject(new XdogError(ErrorCodes.TOOL_FAILED, message)), ms).unref());
}

/** Closes a page, bounded: a renderer that does not answer is left to Chromium. */
async function closePage(page: Page): Promise<void> {
  if (page.isClosed()) return;
  await Promise.race([page.close({ runBeforeUnload: false }).catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
}
