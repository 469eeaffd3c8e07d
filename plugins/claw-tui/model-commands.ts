/**
 * `/model` and `/thinking` with pickers, and their cycling keys (Ctrl+P,
 * Shift+Tab). The choices come from the gateway (`models.list`: what the
 * group's providers serve, with each model's thinking levels), never from a
 * list of our own; a change carries the session id the TUI shows.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ModelCatalog } from '../claw-gateway/tokens.js';
import type { ClawTui } from './app.js';
import { Picker, type PickerItem } from './picker.js';

/** Levels offered for a model that takes any (an unlisted model of an open provider declares none). */
const OPEN_LEVELS = ['minimal', 'low', 'medium', 'high'];

export class ModelCommands {
  constructor(private readonly app: ClawTui) {}

  get #expected(): string | null {
    return this.app.group?.activeSessionId ?? null;
  }

  async #catalog(): Promise<ModelCatalog> {
    return (await this.app.call('models.list', {})) as ModelCatalog;
  }

  /** The thinking levels the current model takes: off, then its declared ones. */
  async #levels(): Promise<string[]> {
    const catalog = await this.#catalog();
    const listed = catalog.models.find((entry) => entry.model === this.app.model);
    if (listed) return ['off', ...(listed.reasoningEfforts ?? [])];
    const provider = this.app.model.split('/')[0] ?? '';
    return ['off', ...(catalog.anyModel.includes(provider) ? OPEN_LEVELS : [])];
  }

  async setModel(model: string): Promise<void> {
    const answer = (await this.app.call('session.model', { model, expectedSessionId: this.#expected })) as { model: string };
    this.app.model = answer.model;
    this.app.notice(`model: ${answer.model}`);
  }

  async setThinking(level: string): Promise<void> {
    const answer = (await this.app.call('session.thinking', { thinking: level === 'off' ? null : level, expectedSessionId: this.#expected })) as { thinking: string | null };
    this.app.thinking = answer.thinking;
    this.app.notice(`thinking: ${answer.thinking ?? 'off'}`);
  }

  /** `/model [ID]`: without ID a picker of the served models. */
  async model(id: string): Promise<void> {
    if (id) return this.setModel(id);
    const catalog = await this.#catalog();
    const items: PickerItem[] = catalog.models.map((entry) => ({
      value: entry.model,
      label: entry.model,
      detail: [entry.name, entry.contextWindow ? `${entry.contextWindow} tok` : '', entry.reasoningEfforts?.length ? `thinking ${entry.reasoningEfforts.join('/')}` : '', entry.input?.includes('image') ? 'images' : ''].filter(Boolean).join(' · '),
      current: entry.model === this.app.model,
    }));
    const open = catalog.anyModel.length ? ` · also any id of ${catalog.anyModel.map((provider) => `${provider}/…`).join(', ')} (/model ID)` : '';
    this.app.showOverlay(
      new Picker({
        title: `models (current ${this.app.model})${open}`,
        items,
        height: () => this.app.tui.terminal.rows - 2,
        close: () => this.app.closeOverlay(),
        pick: (item) => {
          this.app.closeOverlay();
          if (item.value !== this.app.model) this.setModel(item.value).catch((error: unknown) => this.app.error(error));
        },
      }),
    );
  }

  /** `/thinking [LEVEL|off]`: without LEVEL a picker of the current model's levels. */
  async thinking(level: string): Promise<void> {
    if (level) return this.setThinking(level);
    const levels = await this.#levels();
    const current = this.app.thinking ?? 'off';
    this.app.showOverlay(
      new Picker({
        title: `thinking levels of ${this.app.model} (current ${current})`,
        items: levels.map((value) => ({ value, label: value, current: value === current })),
        height: () => this.app.tui.terminal.rows - 2,
        close: () => this.app.closeOverlay(),
        pick: (item) => {
          this.app.closeOverlay();
          if (item.value !== current) this.setThinking(item.value).catch((error: unknown) => this.app.error(error));
        },
      }),
    );
  }

  /** Ctrl+P: the next listed model after the current one. */
  async cycleModel(): Promise<void> {
    const models = (await this.#catalog()).models.map((entry) => entry.model);
    if (models.length < 2) throw new XdogError(ErrorCodes.INVALID_STATE, models.length ? `${models[0]} is the only listed model` : 'the gateway lists no models to cycle through', { hint: 'declare more under models: in the config, or pick one with /model ID' });
    await this.setModel(models[(models.indexOf(this.app.model) + 1) % models.length]!);
  }

  /** Shift+Tab: the next thinking level of the current model. */
  async cycleThinking(): Promise<void> {
    const levels = await this.#levels();
    if (levels.length < 2) throw new XdogError(ErrorCodes.INVALID_STATE, `${this.app.model} declares no thinking levels`, { hint: 'declare reasoning: [...] for it under models: in the config' });
    await this.setThinking(levels[(levels.indexOf(this.app.thinking ?? 'off') + 1) % levels.length]!);
  }
}
