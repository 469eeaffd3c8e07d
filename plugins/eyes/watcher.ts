/**
 * Runs the watches: each is checked every `interval_seconds` (a restarted
 * daemon continues from its stored last check), one check at a time per
 * watch. A check reads the subject (a page's text or screenshot, a file or
 * folder under the workspace, a command's output), compares its digest with
 * the stored one, and records an observation when it changed (and, with
 * `matches`, when the new content matches). The first check sets the baseline.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { compileLinearRegex } from '../../core/linear-regex.js';
import { signalProcessGroup } from '../../core/process-group.js';
import type { EyesBrowser } from './browser.js';
import { isUnder, urlProblem } from './policy.js';
import type { WatchRecord } from './protocol.js';
import type { WatchStore } from './watch-store.js';

interface Reading {
  text: string | null;
  digest: string;
  screenshot: Buffer | null;
}

export class Watcher {
  readonly #store: WatchStore;
  readonly #browser: EyesBrowser;
  readonly #allowHosts: readonly string[];
  readonly #log: (line: string) => void;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Set<string>();
  #stopped = false;

  constructor(options: { store: WatchStore; browser: EyesBrowser; allowHosts: readonly string[]; log: (line: string) => void }) {
    this.#store = options.store;
    this.#browser = options.browser;
    this.#allowHosts = options.allowHosts;
    this.#log = options.log;
  }

  /** Schedules every stored watch (a daemon's start). */
  start(): void {
    for (const watch of this.#store.list()) this.schedule(watch);
  }

  /** Checks the policy of a new watch before it is stored. */
  validate(watch: Pick<WatchRecord, 'kind' | 'subject' | 'workspace' | 'matches'>): void {
    if (watch.matches !== null) {
      try {
        compileLinearRegex(watch.matches);
      } catch (error) {
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the condition ${JSON.stringify(watch.matches)} is not a valid regular expression: ${(error as Error).message}`);
      }
    }
    if (watch.kind === 'page_text' || watch.kind === 'page_screenshot') {
      const problem = urlProblem(watch.subject, { allowHosts: this.#allowHosts, workspace: watch.workspace });
      if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `Eyes refused to watch ${watch.subject}: ${problem}`, { hint: 'the user may add the host to eyes.allow_hosts' });
    }
    if (watch.kind === 'file' && !isUnder(path.resolve(watch.workspace, watch.subject), watch.workspace)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${watch.subject} is outside the workspace ${watch.workspace}`, { hint: 'watch a file or folder under the workspace' });
    }
  }

  schedule(watch: WatchRecord): void {
    if (this.#stopped) return;
    clearTimeout(this.#timers.get(watch.id));
    const due = (watch.last_check_at ?? 0) + watch.interval_seconds * 1000;
    const timer = setTimeout(() => void this.#tick(watch.id), Math.max(0, due - Date.now()));
    this.#timers.set(watch.id, timer);
  }

  cancel(id: string): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #tick(id: string): Promise<void> {
    this.#timers.delete(id);
    if (this.#running.has(id) || this.#stopped) return;
    let watch: WatchRecord;
    try {
      watch = this.#store.get(id);
    } catch {
      return; // cancelled
    }
    this.#running.add(id);
    try {
      await this.#check(watch);
    } finally {
      this.#running.delete(id);
      try {
        this.schedule(this.#store.get(id));
      } catch {
        // Cancelled during the check.
      }
    }
  }

  async #check(watch: WatchRecord): Promise<void> {
    const now = Date.now();
    let reading: Reading;
    try {
      reading = await this.#read(watch);
    } catch (error) {
      const problem = describeError(error);
      this.#store.checked(watch.id, now, { error: problem.slice(0, 2000) });
      this.#log(`watch ${watch.id}: ${problem}`);
      return;
    }
    const before = this.#store.state(watch.id);
    const changed = before.digest !== null && before.digest !== reading.digest;
    const matches = watch.matches === null || (reading.text !== null && compileLinearRegex(watch.matches).test(reading.text));
    const observation = changed && matches ? { summary: summaryOf(watch, before.text, reading.text), diff: reading.text === null ? null : lineDiff(before.text ?? '', reading.text), screenshot: reading.screenshot } : undefined;
    const id = this.#store.checked(watch.id, now, { digest: reading.digest, text: reading.text }, observation);
    if (id !== undefined) this.#log(`watch ${watch.id}: observation ${id}: ${observation!.summary}`);
  }

  async #read(watch: WatchRecord): Promise<Reading> {
    switch (watch.kind) {
      case 'page_text':
      case 'page_screenshot':
        return this.#readPage(watch);
      case 'file':
        return readPath(path.resolve(watch.workspace, watch.subject), watch.workspace);
      case 'command':
        return textReading(await runCommand(watch.subject, watch.workspace));
    }
  }

  #readPage(watch: WatchRecord): Promise<Reading> {
    return this.#browser.withPage({ allowHosts: this.#allowHosts, workspace: watch.workspace }, async (page, bound) => {
      const problem = urlProblem(watch.subject, { allowHosts: this.#allowHosts, workspace: watch.workspace });
      if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `Eyes refused ${watch.subject}: ${problem}`);
      const response = await bound('loading the page', LIMITS.eyesNavigationMs, page.goto(watch.subject, { waitUntil: 'load', timeout: 0 }));
      const finalProblem = urlProblem(page.url(), { allowHosts: this.#allowHosts, workspace: watch.workspace });
      if (finalProblem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the page went to ${page.url()}: ${finalProblem}`);
      const status = response?.status() ?? 0;
      const locator = page.locator(watch.selector ?? 'body').first();
      if (watch.kind === 'page_screenshot') {
        const png = await bound('taking a screenshot', LIMITS.eyesActionMs, locator.screenshot({ type: 'png', timeout: LIMITS.eyesActionMs }));
        if (png.length > LIMITS.eyesScreenshotBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the screenshot is ${png.length} bytes, over ${LIMITS.eyesScreenshotBytes}`, { hint: 'watch one element with a selector' });
        return { text: null, digest: digestOf(png), screenshot: png };
      }
      const text = await bound('reading the text', LIMITS.eyesActionMs, locator.innerText({ timeout: LIMITS.eyesActionMs }));
      return textReading(status >= 400 ? `HTTP ${status}\n${text}` : text);
    });
  }
}

function digestOf(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

function textReading(text: string): Reading {
  if (Buffer.byteLength(text) > LIMITS.eyesWatchBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the watched content is ${Buffer.byteLength(text)} bytes, over the ${LIMITS.eyesWatchBytes}-byte limit`, { hint: 'watch something smaller (a selector, one file)' });
  }
  return { text, digest: digestOf(text), screenshot: null };
}

/** A file's content, or a folder's listing (path, size, mtime), bounded. */
function readPath(file: string, workspace: string): Reading {
  if (!isUnder(file, workspace)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file} is outside the workspace ${workspace}`);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return textReading('(missing)');
  if (stat.isDirectory()) {
    const lines: string[] = [];
    for (const entry of fs.readdirSync(file, { recursive: true, withFileTypes: true })) {
      if (lines.length >= LIMITS.eyesWatchFolderEntries) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the folder ${file} holds more than ${LIMITS.eyesWatchFolderEntries} entries`, { hint: 'watch a smaller folder' });
      }
      const full = path.join(entry.parentPath, entry.name);
      const entryStat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (!entryStat) continue;
      lines.push(`${path.relative(file, full)}${entry.isDirectory() ? '/' : ` ${entryStat.size} bytes, modified ${entryStat.mtime.toISOString()}`}`);
    }
    return textReading(lines.sort().join('\n'));
  }
  if (stat.size > LIMITS.eyesWatchBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${file} is ${stat.size} bytes, over the ${LIMITS.eyesWatchBytes}-byte limit of a watched file`);
  const data = fs.readFileSync(file);
  const text = data.toString('utf8');
  return Buffer.from(text, 'utf8').equals(data) ? textReading(text) : { text: `(binary, ${data.length} bytes)`, digest: digestOf(data), screenshot: null };
}

/** Runs `command` with /bin/sh in `cwd`: its output, bounded in bytes and time (an overrun kills its process group). */
function runCommand(command: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let failure: XdogError | undefined;
    const kill = (error: XdogError): void => {
      failure ??= error;
      signalProcessGroup(child.pid, 'SIGKILL');
    };
    const timer = setTimeout(() => kill(new XdogError(ErrorCodes.TOOL_FAILED, `the command ran longer than ${LIMITS.eyesWatchCommandMs / 1000} s and was killed`)), LIMITS.eyesWatchCommandMs);
    const take = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > LIMITS.eyesWatchBytes) kill(new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the command printed more than ${LIMITS.eyesWatchBytes} bytes and was killed`));
      else chunks.push(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (error) => kill(new XdogError(ErrorCodes.TOOL_FAILED, `the command could not start: ${error.message}`)));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve(`${Buffer.concat(chunks).toString('utf8')}${code === 0 ? '' : `\n(exit ${code ?? signal})`}`);
    });
  });
}

function summaryOf(watch: WatchRecord, before: string | null, after: string | null): string {
  const what = watch.label ?? `${watch.kind.replace('_', ' ')} ${watch.subject}`;
  if (after === null) return `${what}: the screenshot changed`;
  const first = lineDiff(before ?? '', after).split('\n').find((line) => line.startsWith('+'));
  return `${what} changed${first ? `: ${first.slice(1, 200)}` : ''}`;
}

/** Lines removed (-) and added (+), in order, at most LIMITS.eyesDiffLines of them (the rest counted). */
export function lineDiff(before: string, after: string): string {
  const old = before.split('\n');
  const now = after.split('\n');
  const oldSet = new Set(old);
  const nowSet = new Set(now);
  const lines = [...old.filter((line) => !nowSet.has(line)).map((line) => `-${line}`), ...now.filter((line) => !oldSet.has(line)).map((line) => `+${line}`)];
  const shown = lines.slice(0, LIMITS.eyesDiffLines);
  if (lines.length > shown.length) shown.push(`(${lines.length - shown.length} more changed lines not shown)`);
  return shown.join('\n');
}
