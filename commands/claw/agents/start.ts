import { Args, Flags } from '@oclif/core';
import type { DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, imageFlag, readImages, renderChildren } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsStart extends XdogCommand {
  static override summary = "Start a child agent in a group's gateway (read-only unless --inherit; with the active session's conversation unless --fresh)";
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { task: Args.string({ description: 'what the child should do and report back', required: true }) };
  static override flags = {
    group: groupFlag,
    preset: Flags.string({ description: 'start from this child preset' }),
    label: Flags.string({ description: 'a short name for the child, shown in lists (at most 64 bytes)' }),
    instructions: Flags.string({ description: "instructions added to the child's system prompt (they add to the group's restrictions, never replace them)" }),
    model: Flags.string({ description: "the child's model (default: the group's)" }),
    thinking: Flags.string({ description: "the child's thinking level" }),
    tools: Flags.string({ description: 'comma-separated tool names, from those the child may have' }),
    calls: Flags.integer({ description: 'at most this many model calls (at most 16)', min: 1 }),
    tokens: Flags.integer({ description: 'at most this many input plus output tokens (at most 32000)', min: 1 }),
    timeout: Flags.integer({ description: 'seconds before the child is stopped (at most 120)', min: 1 }),
    inherit: Flags.boolean({ description: "the group's tools under the group's current gates, instead of read-only", default: false }),
    image: imageFlag,
    fresh: Flags.boolean({ description: "start from the task alone, without a copy of the active session's conversation (which a child gets by default)", default: false }),
  };
  static override examples = ['<%= config.bin %> claw agents start "find where the config is parsed"', '<%= config.bin %> claw agents start --inherit --calls 4 "run the tests and summarize failures"', '<%= config.bin %> claw agents start --label Reviewer --instructions "Inspect only; report file:line" -- "review the config parser"', '<%= config.bin %> claw agents start --fresh "list the TODO comments under src/"'];

  async run(): Promise<DurableChildRecord> {
    const { argv, flags } = await this.parse(ClawAgentsStart);
    const config = Object.fromEntries(
      Object.entries({
        preset: flags.preset,
        label: flags.label,
        instructions: flags.instructions,
        model: flags.model,
        thinking: flags.thinking,
        tools: flags.tools === undefined ? undefined : flags.tools.split(',').map((name) => name.trim()).filter(Boolean),
        max_model_calls: flags.calls,
        max_tokens: flags.tokens,
        timeout: flags.timeout,
        inherit_context: flags.fresh ? false : undefined,
      }).filter(([, value]) => value !== undefined),
    );
    const task = (argv as string[]).join(' ');
    const images = await readImages(flags.image);
    const child = await callAgents<DurableChildRecord>('agents.start', { group: flags.group, task, access: flags.inherit ? 'inherit' : 'read-only', ...(Object.keys(config).length ? { config } : {}) }, { images });
    if (!this.jsonEnabled()) this.log(renderChildren([child]));
    return child;
  }
}
