/**
 * Opens a login link in the user's browser for `xdog claw web open`:
 * `$BROWSER` first (a colon-separated list of commands, `%s` standing for the
 * URL, as sensible-browser reads it), else `open` on macOS, else `xdg-open`
 * when a display is there to show it. The browser is started detached and
 * never waited for: the command only learns whether it could be started.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How long starting a browser command may take before the link is printed instead. */
const SPAWN_DEADLINE_MS = 5000;

export interface BrowserCommand {
  command: string;
  args: string[];
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The commands that could open `url`, best first; none when nothing here can show a page. */
export function browserCommands(url: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): BrowserCommand[] {
  const commands: BrowserCommand[] = [];
  for (const entry of (env.BROWSER ?? '').split(':')) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const hasSlot = words.some((word) => word.includes('%s'));
    commands.push({ command: words[0]!, args: hasSlot ? words.slice(1).map((word) => word.replaceAll('%s', url)) : [...words.slice(1), url] });
  }
  if (commands.length) return commands;
  if (platform === 'darwin') return [{ command: 'open', args: [url] }];
  const display = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  const xdgOpen = display ? onPath('xdg-open', env) : undefined;
  return xdgOpen ? [{ command: xdgOpen, args: [url] }] : [];
}

/** Starts `command` detached; resolves true once it runs, false when it cannot be started in time. */
function startDetached({ command, args }: BrowserCommand, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { detached: true, stdio: 'ignore', env });
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => finish(false), SPAWN_DEADLINE_MS);
    function finish(started: boolean): void {
      clearTimeout(timer);
      resolve(started);
    }
    child.once('spawn', () => {
      child.unref();
      finish(true);
    });
    child.once('error', () => finish(false));
  });
}

/** Opens `url` with the first browser command that starts; the command that did, or null (print the link instead). */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const candidate of browserCommands(url, env)) {
    if (await startDetached(candidate, env)) return candidate.command;
  }
  return null;
}
