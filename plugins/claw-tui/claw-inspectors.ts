/**
 * The TUI's views of the claw features a person drives interactively: the
 * plan inspector (`/plan`: steps and revision, live; e execute, r revise, s
 * stop), skills (`/skills`), the child agents' roster (`/agents`: live
 * status, steer/follow-up/cancel/wait, a child's transcript; S/F save the
 * steer/follow-up as a draft instead, d and `/agents drafts` browse them), the tools
 * inventory (`/tools`), the read-only scope (`/readonly`) and the
 * workspace's git changes (`/diff`, Alt+D). Each is a few gateway calls; a
 * change carries the session id the TUI shows, so one made meanwhile by
 * another client is refused (STALE), never applied behind its back.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { environmentSecrets } from '../../core/redact.js';
import { LIMITS } from '../../core/limits.js';
import { readSnapshot } from '../../core/rpc/index.js';
import { chunksOf, type GatewayConnection } from '../claw-gateway/index.js';
import { parseChildInput, parseChildSource } from '../children/index.js';
import type { PlanView } from '../plan/index.js';
import type { ClawTui } from './app.js';
import { ActionView } from './action-view.js';
import { renderConversation } from './export-formats.js';
import { Picker, type PickerItem } from './picker.js';
import type { SavedDrafts } from './saved-drafts-view.js';

const usage = (message: string, hint: string): XdogError => new XdogError(ErrorCodes.USAGE, message, { hint });

interface SkillsView {
  group: string;
  sessionId: string | null;
  session: string[];
  turn: string[];
  available: Array<{ slug: string; description: string; title?: string; source: string }>;
}

interface ChildView {
  id: string;
  label: string | null;
  task: string;
  access: string;
  status: string;
  result: string | null;
  error: string | null;
  modelCalls: number;
  tokens: number;
  inputs?: Array<{ id: number; lane: string; text: string; status: string }>;
}

interface WorkspaceDiff {
  workspace: string;
  files: string[];
  diff: string | null;
  omitted?: string;
}

/** How often the open roster reads the children again (their status has no notification). */
const ROSTER_REFRESH_MS = 1000;

export class ClawInspectors {
  #plan: { view: ActionView; revision: number | null } | undefined;
  #roster: { picker: Picker; timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly app: ClawTui,
    private readonly drafts: SavedDrafts,
  ) {}

  get #expected(): string | undefined {
    return this.app.group?.activeSessionId ?? undefined;
  }

  /** Follows the notifications the open views show. */
  attach(connection: GatewayConnection): void {
    connection.on('plan.changed', (view: PlanView) => {
      if (view.group !== this.app.group?.name) return;
      if (this.#plan) this.#showPlan(view);
      this.app.notice(view.plan ? `plan ${view.plan.status}, revision ${view.plan.revision} (${view.plan.steps.length} steps): /plan shows it` : 'plan mode ended');
    });
    // update_plan saves the plan inside a run (no plan.changed): its end is when the open inspector reads it again.
    connection.on('event', (params: { group: string; event: { type: string; toolName?: string } }) => {
      if (params.group !== this.app.group?.name || params.event.type !== 'tool_end' || params.event.toolName !== 'update_plan' || !this.#plan) return;
      this.#currentPlan().then(
        (view) => this.#showPlan(view),
        (error: unknown) => this.#plan?.view.setStatus(`the plan could not be read again: ${(error as Error).message}`),
      );
    });
    connection.on('readonly.changed', (status: { group: string; readOnly: boolean }) => status.group === this.app.group?.name && this.app.notice(`read-only scope: ${status.readOnly ? 'on (tools that write are denied)' : 'off'}`));
    connection.on('skills.changed', (view: SkillsView) => view.group === this.app.group?.name && this.app.notice(`skills: ${describeSkills(view)}`));
  }

  readonly handlers: Record<string, (args: string) => Promise<void> | void> = {
    plan: (args) => this.#planCommand(args),
    skills: (args) => this.#skillsCommand(args),
    agents: (args) => this.#agentsCommand(args),
    tools: (query) => this.#tools(query),
    readonly: (args) => this.#readonly(args),
    diff: () => this.diff(),
  };

  // ---- /plan ----------------------------------------------------------------------------------

  async #planCommand(args: string): Promise<void> {
    const [verb = '', ...rest] = args.split(/\s+/).filter(Boolean);
    const revision = (): number | undefined => {
      if (!rest[0]) return undefined;
      if (!/^[1-9]\d*$/.test(rest[0])) throw usage(`REVISION must be a positive whole number, not "${rest[0]}"`, '/plan shows the revision');
      return Number(rest[0]);
    };
    if (!verb) return this.#openPlan();
    if (verb === 'start') {
      const objective = args.trim().slice('start'.length).trim();
      if (!objective) throw usage('/plan start needs an OBJECTIVE', 'e.g. /plan start move the tests to vitest');
      this.#idle('/plan start');
      this.#planNotice(await this.app.call('plan.start', { objective, ...this.#fence() }));
      return;
    }
    if (verb === 'execute') {
      const at = revision() ?? (await this.#currentPlan()).plan?.revision;
      if (at === undefined) throw new XdogError(ErrorCodes.INVALID_STATE, 'no plan is active in this session', { hint: 'start one with /plan start OBJECTIVE' });
      return this.#planChange('execute', at);
    }
    if (verb === 'revise' || verb === 'stop') return this.#planChange(verb, revision());
    throw usage(`unknown /plan ${verb}`, '/plan, /plan start OBJECTIVE, /plan execute [REVISION], /plan revise [REVISION], /plan stop [REVISION]');
  }

  #fence(): { expectedSessionId?: string } {
    return this.#expected ? { expectedSessionId: this.#expected } : {};
  }

  #idle(what: string): void {
    if (this.app.group?.busy) throw new XdogError(ErrorCodes.BUSY, `${what} is blocked while a turn runs`, { hint: 'wait for it to end, or press Esc to abort it' });
  }

  async #currentPlan(): Promise<PlanView> {
    return (await this.app.call('plan.show', {})) as PlanView;
  }

  async #planChange(verb: 'execute' | 'revise' | 'stop', revision: number | undefined): Promise<void> {
    this.#idle(`/plan ${verb}`);
    this.#planNotice((await this.app.call(`plan.${verb}`, { ...this.#fence(), ...(revision === undefined ? {} : { revision }) })) as PlanView);
  }

  #planNotice(view: PlanView): void {
    if (this.#plan) this.#showPlan(view);
  }

  async #openPlan(): Promise<void> {
    const view = await this.#currentPlan();
    const act = (verb: 'execute' | 'revise' | 'stop') => () => {
      const shown = this.#plan;
      if (!shown) return;
      // The revision on screen: a plan changed meanwhile is refused (STALE) instead of executed unseen.
      this.#planChange(verb, shown.revision ?? undefined).then(
        () => shown.view.setStatus(`${verb}: done`),
        (error: unknown) => {
          shown.view.setStatus(`${verb} refused: ${(error as Error).message}`);
          this.app.tui.requestRender();
        },
      );
    };
    const inspector = new ActionView('plan', '', () => this.app.tui.terminal.rows - 2, () => this.#closePlan(), { e: ['execute', act('execute')], r: ['revise', act('revise')], s: ['stop', act('stop')] });
    this.#plan = { view: inspector, revision: null };
    this.#showPlan(view);
    this.app.showOverlay(inspector);
  }

  #showPlan(view: PlanView): void {
    if (!this.#plan) return;
    this.#plan.revision = view.plan?.revision ?? null;
    const title = view.plan ? `plan · ${view.plan.status} · revision ${view.plan.revision} · session ${view.sessionId.slice(0, 8)}` : 'plan · none';
    const help = view.plan?.status === 'planning' ? 'planning: tools are held to reading; e executes this revision' : view.plan ? 'executing: r returns it to planning, s ends plan mode' : '';
    this.#plan.view.setText(title, view.text ? `${view.text}\n\n${help}` : 'no plan is active in this session; /plan start OBJECTIVE starts one (the model then writes its steps with update_plan)');
    this.app.tui.requestRender();
  }

  #closePlan(): void {
    this.#plan = undefined;
    this.app.closeOverlay();
  }

  // ---- /skills --------------------------------------------------------------------------------

  async #skillsCommand(args: string): Promise<void> {
    const words = args.split(/\s+/).filter(Boolean);
    const verb = words.shift();
    if (!verb) return this.#openSkills();
    const turn = words.includes('--turn');
    const names = words.filter((word) => word !== '--turn');
    if (verb === 'load') {
      if (!names.length) throw usage('/skills load needs a skill name', '/skills lists them');
      this.app.notice(`skills: ${describeSkills(await this.app.call('skills.load', { names, scope: turn ? 'turn' : 'session', ...this.#fence() }))}`);
    } else if (verb === 'unload') {
      if (!names.length) throw usage('/skills unload needs a skill name or all', '/skills lists the loaded ones');
      this.app.notice(`skills: ${describeSkills(await this.app.call('skills.unload', { ...(names.length === 1 && names[0] === 'all' ? { all: true } : { names }), ...this.#fence() }))}`);
    } else throw usage(`unknown /skills ${verb}`, '/skills, /skills load NAME... [--turn], /skills unload NAME...|all');
  }

  async #openSkills(): Promise<void> {
    const items = (view: SkillsView): PickerItem[] =>
      view.available.map((skill) => ({
        value: skill.slug,
        label: skill.slug,
        detail: `${view.session.includes(skill.slug) ? 'loaded · ' : view.turn.includes(skill.slug) ? 'next turn · ' : ''}${skill.description} (${skill.source})`,
        current: view.session.includes(skill.slug) || view.turn.includes(skill.slug),
      }));
    const view = (await this.app.call('skills.list', {})) as SkillsView;
    const change = (method: 'skills.load' | 'skills.unload', names: string[], scope?: 'turn') => {
      this.app
        .call(method, { names, ...(scope ? { scope } : {}), ...this.#fence() })
        .then((next: SkillsView) => {
          picker.setItems(items(next));
          picker.setStatus(describeSkills(next));
        })
        .catch((error: unknown) => picker.setStatus(`refused: ${(error as Error).message}`))
        .finally(() => this.app.tui.requestRender());
    };
    const picker: Picker = new Picker({
      title: 'skills (* loaded)',
      items: items(view),
      height: () => this.app.tui.terminal.rows - 2,
      close: () => this.app.closeOverlay(),
      filterable: false,
      // Enter toggles the session's selection; t loads one for the next turn only.
      pick: (item) => change(item.current ? 'skills.unload' : 'skills.load', [item.value]),
      keys: { t: ['load for the next turn', (item) => change('skills.load', [item.value], 'turn')] },
    });
    picker.setStatus(describeSkills(view));
    this.app.showOverlay(picker);
  }

  // ---- /agents --------------------------------------------------------------------------------

  async #agentsCommand(args: string): Promise<void> {
    const match = /^(\S+)?\s*(\S+)?\s*([\s\S]*)$/.exec(args.trim())!;
    const [, verb, id, text] = match;
    if (!verb || verb === 'list') return this.#openRoster();
    if (verb === 'drafts') return this.drafts.open('child');
    if (verb === 'draft') return this.#saveDraftCommand(args.trim().slice('draft'.length).trim());
    if (verb === 'start') {
      let task = args.trim().slice('start'.length).trim();
      // --inherit: the child gets the group's tools and scope (default: read-only tools).
      const inherit = /^--inherit(?:\s|$)/.test(task);
      if (inherit) task = task.slice('--inherit'.length).trim();
      if (!task) throw usage('/agents start needs a TASK', 'e.g. /agents start find the flaky test (--inherit first gives it the group\'s tools)');
      const child = (await this.app.call('agents.start', { task, ...(inherit ? { access: 'inherit' } : {}) })) as ChildView;
      this.app.notice(`started child ${child.id} (${child.access}): /agents shows it`);
      return;
    }
    if (!id) throw usage(`/agents ${verb} needs a child ID`, '/agents lists them');
    switch (verb) {
      case 'inspect':
        return this.#openChild(id);
      case 'steer':
      case 'follow-up': {
        if (!text) throw usage(`/agents ${verb} needs ID and TEXT`, `e.g. /agents ${verb} ${id} look in src/ too`);
        const input = (await this.app.call(verb === 'steer' ? 'agents.steer' : 'agents.follow_up', { id, text })) as { id: number };
        this.app.notice(`${verb} #${input.id} accepted by child ${id}`);
        return;
      }
      case 'edit-input':
      case 'remove-input':
      case 'move-input':
        return this.#changeChildInput(verb, id, text ?? '');
      case 'cancel': {
        const child = (await this.app.call('agents.cancel', { id })) as ChildView;
        this.app.notice(`child ${child.id}: ${child.status}`);
        return;
      }
      case 'wait': {
        this.app.notice(`waiting for child ${id}…`);
        const [child] = (await this.app.call('agents.wait', { ids: [id] })) as ChildView[];
        this.app.notice(`child ${child!.id}: ${child!.status}${child!.result ? `: ${child!.result.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`);
        return;
      }
      case 'close':
        await this.app.call('agents.close', { id });
        this.app.notice(`child ${id} closed (its record and transcript are gone)`);
        return;
      default:
        throw usage(`unknown /agents ${verb}`, '/agents, /agents start TASK, /agents inspect|steer|follow-up|cancel|wait|close ID [TEXT], /agents edit-input|remove-input|move-input ID N [TEXT|up|down], /agents drafts, /agents draft start TASK|steer|follow-up ID TEXT');
    }
  }

  /**
   * Removes a child's queued input and gives it back: its text and images are
   * read whole first (verified chunks), and once the removal is committed they
   * go into the editor, which must hold no draft (nothing is mixed or lost).
   */
  async #removeChildInput(id: string, input: number): Promise<{ inputs: Array<{ id: number; lane: string; status: string; text: string }>; back?: string }> {
    if (this.app.editor.getText().trim() || this.app.attachments.list().length) {
      throw usage('/agents remove-input puts the input back in the editor, and the editor holds a draft (text or images)', 'send or clear the draft first (Ctrl+U, /attachments clear), then remove it');
    }
    const call = (method: string, params: Record<string, unknown>) => this.app.call(method, params);
    const source = this.app.methods.has('agents.input_source')
      ? await readSnapshot(chunksOf(call, 'agents.input_source', { id, input }), { what: `input #${input} of child ${id}`, maxBytes: LIMITS.childInputSourceBytes, overHint: `see it with /agents inspect ${id}` }, (body) => parseChildInput(body.bytes()))
      : undefined;
    const inputs = (await this.app.call('agents.remove_input', { id, input })) as Array<{ id: number; lane: string; status: string; text: string }>;
    if (!source) return { inputs };
    const { text, images } = source.input;
    this.app.editor.setText(text);
    this.app.attachments.restore(images);
    return { inputs, back: images.length ? `its text and ${images.length} image${images.length === 1 ? ' are' : 's are'}` : 'its text is' };
  }

  /** `/agents edit-input ID N TEXT`, `remove-input ID N`, `move-input ID N up|down`: a queued input the child has not taken in. */
  async #changeChildInput(verb: 'edit-input' | 'remove-input' | 'move-input', id: string, rest: string): Promise<void> {
    const [, number, argument = ''] = /^#?(\d+)\s*([\s\S]*)$/.exec(rest.trim()) ?? [];
    const form = { 'edit-input': 'N TEXT', 'remove-input': 'N', 'move-input': 'N up|down' }[verb];
    if (!number) throw usage(`/agents ${verb} needs ID ${form}`, `N is the input's number (#N in /agents inspect ${id})`);
    const input = Number(number);
    let inputs: Array<{ id: number; lane: string; status: string; text: string }>;
    let back: string | undefined;
    if (verb === 'edit-input') {
      if (!argument) throw usage(`/agents edit-input needs ID N TEXT`, `e.g. /agents edit-input ${id} ${input} look in lib/ instead`);
      inputs = (await this.app.call('agents.edit_input', { id, input, text: argument })) as typeof inputs;
    } else if (verb === 'remove-input') {
      ({ inputs, back } = await this.#removeChildInput(id, input));
    } else {
      if (argument !== 'up' && argument !== 'down') throw usage('/agents move-input needs ID N up|down', `e.g. /agents move-input ${id} ${input} up`);
      inputs = (await this.app.call('agents.move_input', { id, input, by: argument === 'up' ? -1 : 1 })) as typeof inputs;
    }
    const queued = inputs.filter((row) => row.status === 'accepted');
    const done = verb === 'edit-input' ? 'edited' : verb === 'remove-input' ? `removed${back ? `; ${back} back in the editor` : ''}` : `moved ${argument}`;
    this.app.notice(`child ${id}: input #${input} ${done}; queued now: ${queued.map((row) => `#${row.id} ${row.lane}`).join(', ') || 'none'}`);
  }

  /** `/agents draft start TASK`, `/agents draft steer|follow-up ID TEXT`: saved, not sent. */
  async #saveDraftCommand(args: string): Promise<void> {
    const [, kind = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(args)!;
    const hint = 'e.g. /agents draft start find the flaky test, /agents draft steer ID look in src/ too';
    let saved;
    if (kind === 'start') {
      if (!rest) throw usage('/agents draft start needs a TASK', hint);
      saved = await this.drafts.save('start', rest);
    } else if (kind === 'steer' || kind === 'follow-up') {
      const [, id = '', text = ''] = /^(\S*)\s*([\s\S]*)$/.exec(rest)!;
      if (!id || !text) throw usage(`/agents draft ${kind} needs ID and TEXT`, hint);
      saved = await this.drafts.save(kind, text, id);
    } else throw usage(`unknown /agents draft ${kind}`, hint);
    this.app.notice(`saved ${saved.kind} draft ${saved.id}; nothing was sent (/agents drafts puts it back)`);
  }

  async #openRoster(): Promise<void> {
    const rows = (children: ChildView[]): PickerItem[] =>
      children.map((child) => ({
        value: child.id,
        label: `${child.id.slice(0, 8)}  ${child.status.padEnd(11)} ${child.label ?? child.task.replace(/\s+/g, ' ').slice(0, 60)}`,
        detail: `${child.access} · ${child.modelCalls} calls · ${child.tokens} tok`,
        current: child.status === 'running',
      }));
    const read = async (): Promise<ChildView[]> => (await this.app.call('agents.list', {})) as ChildView[];
    const act = (what: string, run: (id: string) => Promise<unknown>) => (item: PickerItem) => {
      picker.setStatus(`${what} ${item.value.slice(0, 8)}…`);
      run(item.value).then(
        () => picker.setStatus(`${what} ${item.value.slice(0, 8)}: done`),
        (error: unknown) => picker.setStatus(`${what} refused: ${(error as Error).message}`),
      );
    };
    // Steer and follow-up take their text from the draft: type it, then open the roster and press s or f.
    const withDraft = (method: 'agents.steer' | 'agents.follow_up') => (id: string) => {
      const text = this.app.editor.getText().trim();
      if (!text) return Promise.reject(new Error('type the text in the editor first, then press the key here'));
      return this.app.call(method, { id, text }).then(() => this.app.editor.setText(''));
    };
    // S and F keep that text as a saved draft for the child instead of sending it.
    const saveDraft = (kind: 'steer' | 'follow-up') => (item: PickerItem) => {
      const text = this.app.editor.getExpandedText();
      if (!text.trim()) return picker.setStatus(`type the text in the editor first (${this.app.keyLabel('agents') ?? '/agents'} opens this roster and keeps it), then press the key here`);
      picker.setStatus(`saving a ${kind} draft for ${item.value.slice(0, 8)}…`);
      this.drafts.save(kind, text, item.value).then(
        (saved) => {
          // Its text is on disk now: the editor is free, as after sending it.
          this.app.editor.setText('');
          picker.setStatus(`saved ${kind} draft ${saved.id} for ${item.value.slice(0, 8)}; nothing was sent (d lists the drafts)`);
          this.app.tui.requestRender();
        },
        (error: unknown) => {
          picker.setStatus(`saving the draft refused: ${(error as Error).message}`);
          this.app.tui.requestRender();
        },
      );
    };
    const picker: Picker = new Picker({
      title: 'child agents (* running; live)',
      items: rows(await read()),
      height: () => this.app.tui.terminal.rows - 2,
      close: () => this.#closeRoster(),
      filterable: false,
      pick: (item) => {
        this.#closeRoster();
        void this.app.submit(`/agents inspect ${item.value}`, '');
      },
      keys: {
        s: ['steer (draft text)', act('steer', withDraft('agents.steer'))],
        f: ['follow-up (draft text)', act('follow-up', withDraft('agents.follow_up'))],
        c: ['cancel', act('cancel', (id) => this.app.call('agents.cancel', { id }))],
        w: ['wait', act('wait', (id) => this.app.call('agents.wait', { ids: [id] }))],
        S: ['save steer draft', saveDraft('steer')],
        F: ['save follow-up draft', saveDraft('follow-up')],
        d: ['drafts', () => void this.drafts.open('child').catch((error: unknown) => picker.setStatus(`drafts: ${(error as Error).message}`))],
      },
    });
    const timer = setInterval(() => {
      // Closed another way (Ctrl+C, another view): stop reading.
      if (!picker.focused) {
        clearInterval(timer);
        if (this.#roster?.picker === picker) this.#roster = undefined;
        return;
      }
      read().then(
        (children) => {
          picker.setItems(rows(children));
          this.app.tui.requestRender();
        },
        () => undefined,
      );
    }, ROSTER_REFRESH_MS);
    timer.unref();
    this.#closeRoster();
    this.#roster = { picker, timer };
    this.app.showOverlay(picker);
  }

  #closeRoster(): void {
    if (this.#roster) clearInterval(this.#roster.timer);
    this.#roster = undefined;
    this.app.closeOverlay();
  }

  async #openChild(id: string): Promise<void> {
    const child = (await this.app.call('agents.inspect', { id })) as ChildView;
    const head = [
      `child ${child.id} · ${child.status} · ${child.access} · ${child.modelCalls} model calls · ${child.tokens} tokens`,
      `task: ${child.task}`,
      child.result ? `result: ${child.result}` : '',
      child.error ? `error: ${child.error}` : '',
      ...(child.inputs ?? []).map((input) => `input #${input.id} ${input.lane} ${input.status}: ${input.text}`),
      '',
    ].filter((line, index) => line || index > 3);
    let transcript = '(the transcript is stored when the child ends)';
    if (this.app.methods.has('agents.source') && child.status !== 'running') {
      // In chunks of one snapshot, verified: a failed or cancelled read shows nothing of it (the error says why).
      const call = (method: string, params: Record<string, unknown>) => this.app.call(method, params);
      const { messages } = await readSnapshot(chunksOf(call, 'agents.source', { id }), { what: `the transcript of child ${id}`, maxBytes: LIMITS.childSourceBytes, overHint: 'read its result with `xdog claw agents inspect`' }, (body) => parseChildSource(body.bytes()));
      transcript = messages.length ? renderConversation(messages.map((message, index) => ({ index: index + 1, entryId: 0, message })), 'text', environmentSecrets()) : '(no transcript was stored)';
    }
    this.app.page(`child ${child.id.slice(0, 8)} (redacted)`, `${head.join('\n')}\ntranscript:\n${transcript}`);
  }

  // ---- /tools, /readonly, /diff ---------------------------------------------------------------

  async #tools(query: string): Promise<void> {
    const { tools } = (await this.app.call('tools.list', {})) as { tools: Array<{ name: string; description: string; parameters: unknown }> };
    const items: PickerItem[] = tools.map((tool) => ({ value: tool.name, label: tool.name, detail: tool.description.split('\n')[0] }));
    const schemas = new Map(tools.map((tool) => [tool.name, tool] as const));
    if (this.app.methods.has('mcp.tools')) {
      const mcp = (await this.app.call('mcp.tools', {}).catch(() => [])) as Array<{ alias: string; description: string; inputSchema: unknown; allowed: boolean }>;
      for (const tool of mcp) {
        items.push({ value: tool.alias, label: tool.alias, detail: `MCP${tool.allowed ? '' : ' (blocked: allow_tools off)'} · ${tool.description.split('\n')[0]}` });
        schemas.set(tool.alias, { name: tool.alias, description: tool.description, parameters: tool.inputSchema });
      }
    }
    const picker = new Picker({
      title: 'tools the agent gets',
      items,
      height: () => this.app.tui.terminal.rows - 2,
      close: () => this.app.closeOverlay(),
      pick: (item) => {
        const tool = schemas.get(item.value)!;
        this.app.page(`tool ${tool.name}`, `${tool.description}\n\nparameters:\n${JSON.stringify(tool.parameters, null, 2)}`);
      },
    });
    for (const char of query) picker.handleInput(char);
    this.app.showOverlay(picker);
  }

  async #readonly(args: string): Promise<void> {
    const verb = args.trim();
    if (verb && verb !== 'on' && verb !== 'off') throw usage(`/readonly takes on or off, not "${verb}"`, '/readonly shows the scope; /readonly on|off changes it');
    if (verb) this.#idle('/readonly');
    const status = (await this.app.call(verb ? 'readonly.set' : 'readonly.status', verb ? { readOnly: verb === 'on' } : {})) as { readOnly: boolean; mode: string; problem?: string };
    if (!verb) this.app.notice(status.mode === 'corrupt' ? `read-only scope: unreadable (${status.problem}); every tool call is denied until /readonly off` : `read-only scope: ${status.readOnly ? 'on (tools that write are denied)' : 'off'}`);
  }

  /** `/diff`, Alt+D: the workspace's git changes, read by the gateway (r reads them again). */
  async diff(): Promise<void> {
    const read = async (): Promise<[string, string]> => {
      const answer = (await this.app.call('workspace.diff', {})) as WorkspaceDiff;
      const files = answer.files.length ? answer.files.join('\n') : '(no changes)';
      const body = answer.diff === null ? `(${answer.omitted})` : answer.diff || '(no diff against HEAD; untracked files are listed above)';
      return [`diff of ${answer.workspace} · ${answer.files.length} changed file(s)`, `${files}\n\n${body}`];
    };
    const [title, text] = await read();
    const view: ActionView = new ActionView(title, text, () => this.app.tui.terminal.rows - 2, () => this.app.closeOverlay(), {
      r: [
        'refresh',
        () => {
          read().then(
            ([nextTitle, nextText]) => {
              view.setText(nextTitle, nextText);
              view.setStatus('refreshed');
              this.app.tui.requestRender();
            },
            (error: unknown) => {
              view.setStatus(`refresh failed: ${(error as Error).message}`);
              this.app.tui.requestRender();
            },
          );
        },
      ],
    });
    this.app.showOverlay(view);
  }
}

function describeSkills(view: SkillsView): string {
  const loaded = view.session.length ? `loaded ${view.session.join(', ')}` : 'none loaded';
  return `${loaded}${view.turn.length ? `; next turn: ${view.turn.join(', ')}` : ''} (${view.available.length} available)`;
}
