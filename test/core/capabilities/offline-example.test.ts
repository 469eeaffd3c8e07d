/**
 * The seed's offline capability example, rewritten in TypeScript. Like a
 * host application it uses the published build (dist/), so the Flow plugin
 * and the host share one copy of xdog.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ModelContext, ModelStreamFn } from '../../../core/index.js';

// Imported by URL so the type check does not need dist/; the types are those of the sources it is built from.
const dist = (file: string) => new URL(`../../../dist/${file}`, import.meta.url).href;
const xdog: typeof import('../../../core/index.js') = await import(dist('core/index.js'));
const { createBuiltinTools }: typeof import('../../../plugins/tools/index.js') = await import(dist('plugins/tools/index.js'));

describe('offline capability example (SDK)', () => {
  it('opens only Flow: tools are exactly flow, skill and current_time, and no workflow runs', async () => {
    const requests: ModelContext[] = [];
    const offline: ModelStreamFn = async function* (model, context) {
      requests.push(structuredClone(context));
      const message: AssistantMessage = {
        role: 'assistant',
        content: [{ type: 'text', text: 'Offline SDK example' }],
        model,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'stop',
        timestamp: Date.now(),
      };
      yield { type: 'done', message };
    };

    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-sdk-example-'));
    try {
      // Built-in instances can be narrowed; no custom registry or manager.
      const hostTools = new xdog.ToolRepo(createBuiltinTools({ cwd: workspace })).select(['current_time']);
      // Packaged skills are discovered by default; the host directory is registered without being created.
      const hostSkills = new xdog.SkillRepo().register({ directory: path.join(workspace, 'skills'), name: 'host' });
      const catalog = new xdog.CapabilitySet('application');

      const capabilities = await catalog.select(['flow']).open();
      expect(capabilities.capabilities).toEqual(['flow']);
      const agent = capabilities.createAgent(offline, { config: { model: 'offline' }, toolRepo: hostTools, skillRepo: hostSkills });
      const blocked: string[] = [];
      agent.hooks.beforeToolCall.tapPromise('deny-tools', async ({ tool }) => {
        blocked.push(tool.name);
        return { block: true, reason: 'This example does not execute tools' };
      });

      expect(new Set(agent.localTools.map((tool) => tool.name))).toEqual(new Set(['flow', 'skill', 'current_time']));
      expect(agent.activeSkills).toEqual([]);
      expect(agent.skills?.get('flow').source).toMatch(/^plugin:flow$/);

      const stream = agent.prompt('Describe the available capabilities.');
      for await (const _event of stream) {
        // consume the stream while the producer runs
      }
      const result = await stream.result();
      expect(result.status).toBe('completed');
      expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ text: 'Offline SDK example' }] });

      // One model call, the three tools offered, no skill body placed, no tool (so no workflow) run.
      expect(requests).toHaveLength(1);
      expect(requests[0]!.tools.map((tool) => tool.name).sort()).toEqual(['current_time', 'flow', 'skill']);
      expect(requests[0]!.systemPrompt ?? '').not.toContain('Flow is xdog');
      expect(blocked).toEqual([]);
      expect(fs.existsSync(path.join(workspace, 'skills'))).toBe(false);

      await agent.close();
      await capabilities.close();
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
