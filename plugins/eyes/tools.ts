/**
 * The model's Eyes tools. Each is a thin call to the shared daemon: the
 * tool adds the caller's workspace (which bounds `file://` and watched paths)
 * and its model's image limits; the daemon enforces the policy. A refused or
 * failed call is an error result with the daemon's message and its fix.
 */
import { ErrorCodes, XdogError, type AgentTool, type ImageLimits } from '../../core/index.js';
import type { EyesClient } from './client.js';

export const EYES_TOOL_NAMES = ['eyes_look', 'eyes_read', 'eyes_console', 'eyes_close', 'eyes_watch'] as const;

export interface EyesToolOptions {
  /** The daemon connection (made when the capability opened, or at a group's first call). */
  client: () => Promise<EyesClient>;
  /** The workspace: `file://` pages and watched paths must be under it. */
  workspace: string;
  /** What the model takes as images (absent: no declared limits). */
  images?: { accepted: boolean; limits?: ImageLimits };
}

const TARGET = { type: 'string', description: 'the target (a named page shared by agents); default "main"' } as const;

function errorText(error: unknown): string {
  if (XdogError.is(error)) return `${error.message}${error.hint ? ` (${error.hint})` : ''}`;
  return (error as Error).message;
}

/** Wraps a daemon call so a refusal becomes an error result the model can read. */
function tool<A>(definition: Omit<AgentTool<A>, 'execute'>, run: (args: A) => Promise<AgentTool['execute'] extends (...a: never[]) => Promise<infer R> ? R : never>): AgentTool<A> {
  return {
    ...definition,
    async execute(args) {
      try {
        return await run(args);
      } catch (error) {
        return { content: [{ type: 'text', text: errorText(error) }], isError: true };
      }
    },
  };
}

export function createEyesTools(options: EyesToolOptions): AgentTool[] {
  const workspace = options.workspace;
  const look = tool<{ target?: string; url?: string; width?: number; height?: number; full_page?: boolean; selector?: string }>(
    {
      name: 'eyes_look',
      description:
        'Look at a web page (loopback dev servers, allowed hosts, or file:// under the workspace) in the shared headless browser: navigates a named target (or reuses it) and returns a PNG screenshot with the title and URL. ' +
        'width/height set the viewport; full_page takes the whole page; selector takes one element.',
      parameters: {
        type: 'object',
        properties: {
          target: TARGET,
          url: { type: 'string', description: 'navigate here first (omit to look at the target as it is)' },
          width: { type: 'integer', minimum: 16, description: 'viewport width in CSS pixels' },
          height: { type: 'integer', minimum: 16, description: 'viewport height in CSS pixels' },
          full_page: { type: 'boolean' },
          selector: { type: 'string', description: 'CSS selector of one element to capture' },
        },
        additionalProperties: false,
      },
    },
    async (args) => {
      if ((args.width === undefined) !== (args.height === undefined)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'give both width and height, or neither');
      const maxBytes = options.images?.limits?.maxBytes;
      const result = await (await options.client()).call('look', {
        target: args.target,
        url: args.url,
        viewport: args.width === undefined ? undefined : { width: args.width, height: args.height },
        full_page: args.full_page,
        selector: args.selector,
        workspace,
        ...(maxBytes ? { max_bytes: maxBytes } : {}),
      });
      const text = `target ${result.target}: ${result.title ? `"${result.title}" ` : ''}${result.url} (${result.width}x${result.height} PNG)`;
      const accepted = options.images?.accepted !== false && options.images?.limits?.maxCount !== 0;
      if (!accepted) return { content: [{ type: 'text', text: `${text}; this model takes no images, so none is attached: use eyes_read for the text` }], details: { ...result, png: undefined } };
      return { content: [{ type: 'image', data: result.png, mimeType: 'image/png' }, { type: 'text', text }], details: { target: result.target, url: result.url, title: result.title, width: result.width, height: result.height } };
    },
  );
  const read = tool<{ target?: string; url?: string; format?: 'text' | 'outline'; selector?: string }>(
    {
      name: 'eyes_read',
      description: 'Read a page of the shared browser as text (what a person sees) or as an accessibility outline (roles and names), optionally one element (CSS selector). Navigates the target first when url is given.',
      parameters: {
        type: 'object',
        properties: { target: TARGET, url: { type: 'string' }, format: { type: 'string', enum: ['text', 'outline'] }, selector: { type: 'string' } },
        additionalProperties: false,
      },
    },
    async (args) => {
      const result = await (await options.client()).call('read', { ...args, workspace });
      return { content: [{ type: 'text', text: `target ${result.target}: "${result.title}" ${result.url}\n\n${result.text}` }], details: result };
    },
  );
  const consoleTool = tool<{ target?: string }>(
    {
      name: 'eyes_console',
      description: "The console errors and warnings, uncaught exceptions, failed requests, HTTP errors and crashes of a target since the last eyes_console call.",
      parameters: { type: 'object', properties: { target: TARGET }, additionalProperties: false },
    },
    async (args) => {
      const result = await (await options.client()).call('console', args);
      const lines = result.events.map((event: { at: number; kind: string; text: string }) => `${new Date(event.at).toISOString()} ${event.kind}: ${event.text}`);
      if (result.dropped > 0) lines.unshift(`(${result.dropped} older events were dropped: more than the bound arrived between two calls)`);
      return { content: [{ type: 'text', text: `target ${result.target} (${result.status}): ${lines.length ? `\n${lines.join('\n')}` : 'no new events'}` }], details: result };
    },
  );
  const close = tool<{ target?: string }>(
    { name: 'eyes_close', description: 'Close a target (its page) in the shared browser.', parameters: { type: 'object', properties: { target: TARGET }, additionalProperties: false } },
    async (args) => {
      const result = await (await options.client()).call('close', args);
      return { content: [{ type: 'text', text: result.closed ? `closed target ${args.target ?? 'main'}` : `there was no target ${args.target ?? 'main'}` }], details: result };
    },
  );
  const watch = tool<{ kind: string; subject: string; interval_seconds: number; matches?: string; selector?: string; label?: string }>(
    {
      name: 'eyes_watch',
      description:
        'Keep watching something and record each change as an observation (durable; it outlives this agent): a page\'s text or screenshot (kind page_text / page_screenshot, subject a URL), a file or folder under the workspace (kind file, subject its path), or a command\'s output (kind command, subject a shell command run in the workspace). ' +
        'interval_seconds >= 10; matches: only changes whose new content matches this regular expression count. Returns the watch id (a claw group can follow it: xdog claw eyes follow ID).',
      parameters: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['page_text', 'page_screenshot', 'file', 'command'] },
          subject: { type: 'string' },
          interval_seconds: { type: 'integer', minimum: 10 },
          matches: { type: 'string' },
          selector: { type: 'string' },
          label: { type: 'string' },
        },
        required: ['kind', 'subject', 'interval_seconds'],
        additionalProperties: false,
      },
    },
    async (args) => {
      const result = await (await options.client()).call('watch', { ...args, workspace });
      return { content: [{ type: 'text', text: `watching ${result.kind} ${result.subject} every ${result.interval_seconds} s as ${result.id}` }], details: result };
    },
  );
  return [look, read, consoleTool, close, watch];
}
