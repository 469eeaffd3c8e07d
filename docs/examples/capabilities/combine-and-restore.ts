import { CapabilityAssembly, CapabilitySet, ToolRepo, type AgentTool } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

// A tool only this session has (a host tool, not a capability).
const sessionNote: AgentTool = {
  name: 'session_note',
  description: 'Records a note for this session',
  parameters: { type: 'object' },
  execute: async () => ({ content: [{ type: 'text', text: 'noted' }] }),
};

export async function main(): Promise<string[]> {
  // One application set for the process, one set per session, combined per agent.
  const app = await new CapabilitySet('application').select(['flow']).open();
  const session = await new CapabilitySet('session', { toolRepo: new ToolRepo([sessionNote]) }).open({ scope: 'session', id: 'session-1' });
  const assembly = CapabilityAssembly.combine(app, session);

  const agent = assembly.createAgent(createFauxStreamFn({ responses: [{ text: 'Hello!' }] }), { config: { model: 'faux/demo' } });
  console.log(agent.localTools.map((tool) => tool.name).sort()); // [ 'flow', 'session_note', 'skill' ]
  agent.setActiveSkills(['flow'], 'session'); // the host activates Flow's packaged skill
  await agent.prompt('Hi').result();
  const saved = JSON.stringify(agent.dump()); // names the "flow" skill by slug and body digest
  await agent.close(); // agents close before their sets

  // Later: restore into today's capabilities. The host re-supplies config and allowed models.
  const restored = await assembly.restoreAgent(createFauxStreamFn({ responses: [] }), JSON.parse(saved), {
    config: { model: 'faux/demo' },
    allowedModels: ['faux/demo'],
  });
  const active = restored.activeSkills.map((skill) => `${skill.scope}:${skill.slug}`);
  await restored.close();

  // The session set alone does not provide the "flow" skill: restoring fails closed.
  const refused = await session
    .restoreAgent(createFauxStreamFn({ responses: [] }), JSON.parse(saved), { config: { model: 'faux/demo' } })
    .then(() => 'restored', (error: Error) => error.message);
  console.log(refused); // cannot restore into this capability assembly (no capabilities): the snapshot's session skill "flow" is not in ...

  await assembly.close(); // owns no set
  await session.close();
  await app.close();
  return [...active, refused];
}
