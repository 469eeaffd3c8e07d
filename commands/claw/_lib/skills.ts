/** What the `xdog claw skills` commands share: reaching the gateway's skills service, and showing a selection. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { SkillsView } from '../../../plugins/claw-skills/index.js';
import { withGateway } from './gateway.js';
import { clean, table } from './render.js';

const SKILLS_CAPABILITY = 'skills:1';

/** Connects, checks that the gateway serves skills, calls `method` with `params`. */
export function callSkills(method: string, params: Record<string, unknown>): Promise<SkillsView> {
  return withGateway(async (gateway) => {
    if (!gateway.hello.capabilities.includes(SKILLS_CAPABILITY)) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no skills service', { hint: 'restart it with this xdog version (xdog claw gateway stop, then xdog claw gateway start)' });
    }
    return (await gateway.callService(method, params)) as SkillsView;
  });
}

/** The available skills with what the session loaded, then the selection in one line. */
export function renderSkills(view: SkillsView): string {
  const scopeOf = (slug: string): string => (view.session.includes(slug) ? 'session' : view.turn.includes(slug) ? 'next turn' : '-');
  const lines = [
    view.available.length
      ? table(['SKILL', 'LOADED', 'SOURCE', 'DESCRIPTION'], view.available.map((skill) => [skill.slug, scopeOf(skill.slug), clean(skill.source, 40), clean(skill.description)]))
      : `group ${view.group} has no skills to load (add a directory of skills under skills.dirs in the config)`,
  ];
  lines.push(renderSelection(view));
  return lines.join('\n');
}

/** One line: what the session has loaded, and when a change takes effect. */
export function renderSelection(view: SkillsView): string {
  if (view.sessionId === null) return `group ${view.group} has no session yet`;
  const parts = [`session: ${view.session.join(', ') || 'none'}`, `next turn: ${view.turn.join(', ') || 'none'}`];
  const line = `session ${view.sessionId}: ${parts.join('; ')}`;
  return view.runActive ? `${line} (a turn is running: changes apply from the next turn)` : line;
}
