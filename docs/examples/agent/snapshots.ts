import { Agent, decodeSnapshotMessages, encodeSnapshotMessages } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

export async function main(): Promise<number> {
  const agent = new Agent(createFauxStreamFn({ responses: [{ text: 'Hello!' }] }), { model: 'faux/demo' });
  await agent.prompt('Hi').result();

  // A whole snapshot: versioned JSON, taken while idle.
  const saved = JSON.stringify(agent.dump());
  const restored = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
  restored.restore(JSON.parse(saved), { allowedModels: ['faux/demo'] });

  // A split snapshot for long histories: metadata plus bounded message fragments.
  const metadata = agent.dumpMetadata();
  const fragments = encodeSnapshotMessages(agent.messages);
  const fromParts = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
  fromParts.restoreParts(metadata, decodeSnapshotMessages(fragments), { allowedModels: ['faux/demo'] });

  console.log(restored.messages.length, fromParts.messages.length);
  return fromParts.messages.length;
}
