import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { renderTree } from '../_lib/render.js';
import { readWholeTree, type SessionTree } from '../../../plugins/sessions/tree-pages.js';

export default class ClawSessionsTree extends XdogCommand {
  static override summary = "Show a session's entry tree (* marks the path to the leaf); branch ENTRY_ID moves the leaf";
  static override enableJsonFlag = true;
  static override args = { session: Args.string({ description: 'a session id (default: the active session)' }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw sessions tree', '<%= config.bin %> claw sessions tree --json'];

  async run(): Promise<SessionTree> {
    const { args, flags } = await this.parse(ClawSessionsTree);
    // Page by page (the gateway answers bounded flat pages); --json prints the entries flat, each with its parentId.
    const tree = await withGateway((gateway) => readWholeTree((next) => gateway.call('session.tree', { group: flags.group, sessionId: next?.sessionId ?? args.session, cursor: next?.cursor })));
    if (!this.jsonEnabled()) this.log(renderTree(tree));
    return tree;
  }
}
