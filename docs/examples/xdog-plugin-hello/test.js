// Testing a plugin: load it into a kernel of its own and drive an agent with the scripted `faux` model.
import assert from 'node:assert/strict';
import { ToolContribution, createKernel } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';
import hello from './index.js';

const kernel = await createKernel({ plugins: [hello] }); // binds its tools, taps its hooks
const model = createFauxStreamFn({
  responses: [
    { toolCalls: [{ name: 'hello', arguments: { name: 'Ada' } }, { name: 'hello', arguments: { name: 'Voldemort' } }] },
    { text: 'Done.' },
  ],
});
const agent = kernel.createAgent(model, { model: 'faux/test' }, { tools: kernel.getAll(ToolContribution) });
await agent.prompt('greet Ada and Voldemort').result();

const results = agent.messages.filter((message) => message.role === 'toolResult');
assert.equal(results[0].content[0].text, 'Hello, Ada!');
assert.equal(results[1].isError, true); // the veto
assert.match(results[1].content[0].text, /we do not greet him/);
await agent.close();
await kernel.close();
console.log('ok');
