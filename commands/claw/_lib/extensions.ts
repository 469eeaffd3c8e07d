/** Renders extension states for people: one line per extension, then what it registered. */
import { terminalSafe } from '../../../core/terminal-text.js';
import type { ExtensionInfo } from '../../../plugins/extensions/index.js';

export function renderExtensions(list: readonly ExtensionInfo[]): string {
  if (list.length === 0) return 'no extensions are enabled (list package names under extensions: in the config)';
  return list
    .map((info) => {
      const lines = [`${info.id}${info.version ? ` ${info.version}` : ''}: ${info.state}${info.reason ? ` (${info.reason})` : ''}${info.failClosed ? '; tool calls fail closed' : ''}`];
      for (const [what, names] of [['commands', info.commands.map((name) => `/${name}`)], ['tools', info.tools], ['providers', info.providers]] as const) {
        if (names.length) lines.push(`  ${what}: ${names.join(', ')}`);
      }
      for (const [key, text] of Object.entries(info.status)) lines.push(`  status ${key}: ${text}`);
      return terminalSafe(lines.join('\n'));
    })
    .join('\n');
}
