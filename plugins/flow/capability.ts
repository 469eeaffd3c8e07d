/**
 * Flow as a capability: opening it contributes the `flow` tool and the
 * packaged `flow` skill (indexed, never activated by default). It starts no
 * daemon and owns no resource, so closing it has nothing to release.
 */
import { FLOW_TOOL_NAME, createFlowTool } from './flow-tool.js';
import type { CapabilityProvider } from '../../core/index.js';

export const flowCapability: CapabilityProvider = {
  name: 'flow',
  description: 'Typed workflows: validate, compile and run Flow files',
  open(context) {
    // Flows may use the host's tools, never their own tool (flows do not nest).
    const tools = () => (context.toolRepo?.tools ?? []).filter((tool) => tool.name !== FLOW_TOOL_NAME);
    const cwd = context.host.cwd ?? process.cwd();
    return {
      tools: [createFlowTool({ cwd, runtime: context.host.runtime, tools })],
      skills: context.packagedSkills.has('flow') ? context.packagedSkills.select(['flow']) : undefined,
    };
  },
};
