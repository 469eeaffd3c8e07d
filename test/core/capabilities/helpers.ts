/** Small builders shared by the capability tests: tools, capability plugins and skill folders. */
import fs from 'node:fs';
import path from 'node:path';
import { CapabilityContribution, ContainerModule, definePlugin, type AgentTool, type CapabilityProvider } from '../../../core/index.js';

/** A tool that answers with `text()`. */
export function textTool(name: string, text: () => string): AgentTool {
  return { name, description: name, parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: text() }] }) };
}

/** A plugin binding one capability provider. */
export function capabilityPlugin(name: string, provider: CapabilityProvider) {
  return definePlugin({
    name,
    provides: { capabilities: [provider.name] },
    module: new ContainerModule(({ bind }) => void bind(CapabilityContribution).toConstantValue(provider)),
  });
}

/** Writes `<dir>/<slug>/SKILL.md` with `body` and returns `dir`. */
export function writeSkill(dir: string, slug: string, body: string): string {
  fs.mkdirSync(path.join(dir, slug), { recursive: true });
  fs.writeFileSync(path.join(dir, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: The ${slug} skill\n---\n${body}\n`);
  return dir;
}
