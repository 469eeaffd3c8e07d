import { createKernel, definePlugin, type Message } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

const seen: string[] = [];

export const auditPlugin = definePlugin({
  name: 'xdog-plugin-audit',
  hooks: {
    // Before each tool call, after argument validation. Return {block, reason} to stop it, or nothing.
    beforeToolCall: ({ toolCall, tool, args, remote, signal }) => {
      void signal;
      seen.push(`before ${tool.name} ${JSON.stringify(args)} remote=${remote} id=${toolCall.id !== ''}`);
      return args.path === '/etc/shadow' ? { block: true, reason: 'not that file' } : undefined;
    },
    // After each tool call, in call order. Return a changed context to replace result/isError, or nothing.
    afterToolCall: (context) => {
      seen.push(`after ${context.toolCall.name} isError=${context.isError}`);
      return { ...context, result: { ...context.result, content: [...context.result.content, { type: 'text', text: '(audited)' }] } };
    },
    // Before any input enters history. Return nothing, a string (new text), or
    // {action: 'continue' | 'transform' | 'reject' | 'handled', ...}.
    inputTransform: ({ text, images, source }) => {
      seen.push(`input ${source} images=${images.length}`);
      return text.startsWith('/ping') ? { action: 'handled', feedback: 'pong' } : text.trim();
    },
    // Before every model call: rewrite a copy of the messages (never the transcript). Return the messages.
    context: (messages: Message[], { model, turn }) => {
      seen.push(`context ${model} turn=${turn}`);
      return messages;
    },
    // Before a compaction: nothing to continue, {cancel: true} to veto, or {summary} to supply one.
    beforeCompact: ({ automatic }) => (automatic ? { cancel: true, reason: 'compact only on request' } : undefined),
    // After a compaction was committed: observe only.
    compact: ({ before, after }) => {
      seen.push(`compacted ${before} -> ${after}`);
    },
  },
});

export async function main(): Promise<string[]> {
  const kernel = await createKernel({ plugins: [auditPlugin] });
  const model = createFauxStreamFn({ responses: [{ toolCalls: [{ name: 'read', arguments: { path: '/etc/shadow' } }] }, { text: 'I may not read it.' }] });
  const read = { name: 'read', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, execute: async () => ({ content: [] }) };
  const agent = kernel.createAgent(model, { model: 'faux/demo' }, { tools: [read] });
  await agent.prompt('  read the shadow file  ').result();
  await agent.prompt('/ping').result();
  await agent.close();
  return seen;
}
