import { Args, Flags } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { terminalSafe } from '../../../core/terminal-text.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { readWholeTree } from '../../../plugins/sessions/tree-pages.js';
import { extensionEntriesOn, type ExtensionEntry } from '../../../plugins/extensions/entries.js';

export default class ClawSessionsEntries extends XdogCommand {
  static override summary = "Show the durable entries extensions appended (appendEntry) on a session's path, oldest first";
  static override description = 'Reads them from the store through the gateway, the entries an extension gets back from getEntries(); --extension ID shows one extension\'s only.';
  static override enableJsonFlag = true;
  static override args = { session: Args.string({ description: 'a session id (default: the active session)' }) };
  static override flags = { group: groupFlag, extension: Flags.string({ char: 'e', description: "only this extension's entries (its id, the package name)" }) };
  static override examples = ['<%= config.bin %> claw sessions entries', '<%= config.bin %> claw sessions entries --extension xdog-extension-guard --json'];

  async run(): Promise<{ sessionId: string; entries: ExtensionEntry[] }> {
    const { args, flags } = await this.parse(ClawSessionsEntries);
    // The whole tree in bounded pages, then its path: entries on other branches are not this session's now.
    const tree = await withGateway((gateway) => readWholeTree((next) => gateway.call('session.tree', { group: flags.group, sessionId: next?.sessionId ?? args.session, cursor: next?.cursor })));
    const entries = extensionEntriesOn(tree.entries.filter((entry) => entry.onPath), flags.extension);
    if (!this.jsonEnabled()) {
      if (entries.length === 0) this.log(`no extension entries${flags.extension ? ` of ${terminalSafe(flags.extension)}` : ''} on the path of session ${tree.sessionId}`);
      for (const entry of entries) this.log(terminalSafe(`#${entry.id}  ${entry.extension}  ${entry.kind}  ${JSON.stringify(entry.data)}`));
    }
    return { sessionId: tree.sessionId, entries };
  }
}
