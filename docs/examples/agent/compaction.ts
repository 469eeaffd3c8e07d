import { Agent, tapHook, type CompactionCommitted, type CompactionPreparation } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

export async function main(): Promise<string[]> {
  const model = createFauxStreamFn({
    responses: [
      { text: 'Read src/app.ts: the bug is in parse().' },
      { text: 'Fixed parse(); the tests pass.' },
      { text: 'Done: the release notes are in CHANGES.md.' },
      // The summary request: the session's model, no tools.
      { text: '## Goal\nShip the parse() fix.\n## Progress\n### Done\n- fixed parse() in src/app.ts' },
      { text: 'Yes, parse() was fixed in src/app.ts.' },
    ],
  });
  const agent = new Agent(model, { model: 'faux/demo' }, { compaction: { keepRecentTokens: 10 } });
  for (const text of ['Find the bug in src/app.ts', 'Fix it and run the tests', 'Write the release notes']) await agent.prompt(text).result();

  // Policy sees a copy of the plan; returning { cancel: true } would veto, { summary } would replace the model's.
  tapHook(agent.hooks.beforeCompact, 'audit', (preparation: CompactionPreparation) => {
    console.log(`compacting ${preparation.firstKeptIndex} of ${preparation.originalCount} messages`);
    return undefined;
  });
  tapHook(agent.hooks.compact, 'log', (committed: CompactionCommitted) => console.log(`${committed.before} → ${committed.after} messages`));

  const result = await agent.compact('keep the file names');
  if (!result.compacted) throw new Error(result.message);

  // The next request starts with the summary, then the latest turn verbatim.
  await agent.prompt('Did we fix parse()?').result();
  const request = model.requests.at(-1)!;
  return request.messages.map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join('')));
}
