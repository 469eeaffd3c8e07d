import { describe, expect, it } from 'vitest';
import { tapHook, type AgentEvent, type AgentTool, type InputTransformRequest } from '../../../core/index.js';
import { PNG, collect, deferred, recordingTool, requestTexts, scripted } from './helpers.js';

function waitingTool(name: string, gate: Promise<void>, onStart?: () => void): AgentTool {
  return {
    name,
    description: name,
    parameters: { type: 'object' },
    execute: async () => {
      onStart?.();
      await gate;
      return { content: [{ type: 'text', text: `${name} done` }] };
    },
  };
}

describe('steering and queued inputs', () => {
  it('scenario 8: a steer queued while a tool runs is admitted before the next model call; consumed only at admission; moving it after selection fails', async () => {
    const gate = deferred();
    const started = deferred();
    const { agent, model } = scripted([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'noted' }], { tools: [waitingTool('slow', gate.promise, started.resolve)] });
    const moveErrors: unknown[] = [];
    tapHook(agent.hooks.inputTransform, 'probe', (request: InputTransformRequest) => {
      if (request.id) {
        try {
          agent.changeInput(request.id, 'move', 1);
        } catch (error) {
          moveErrors.push(error);
        }
      }
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => events.push(event));
    const stream = agent.prompt('work');
    await started.promise;
    agent.queueInput('ui:1', 'also check the logs', 'steer');
    agent.queueInput('ui:2', 'second', 'steer');
    expect(events.some((event) => event.type === 'input_consumed')).toBe(false);
    expect(agent.pendingInputs().map((input) => input.state)).toEqual(['queued', 'queued']);
    gate.resolve();
    await stream.result();
    expect(moveErrors[0]).toMatchObject({ code: 'INVALID_STATE' });
    expect(requestTexts(model, 1).slice(-2)).toEqual(['slow done', 'also check the logs']);
    const consumed = events.findIndex((event) => event.type === 'input_consumed');
    const toolEnd = events.findIndex((event) => event.type === 'tool_end');
    const secondTurn = events.findIndex((event) => event.type === 'turn_start' && event.turn === 2);
    expect(consumed).toBeGreaterThan(toolEnd);
    expect(consumed).toBeLessThan(secondTurn);
    expect(events[consumed]).toMatchObject({ id: 'ui:1', lane: 'steer', message: { role: 'user', content: 'also check the logs' } });
    // One at a time: the second steer ran at the next checkpoint.
    expect(requestTexts(model, 2).at(-1)).toBe('second');
    expect(() => agent.changeInput('ui:1', 'move', 1)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('a steer during a two-call parallel batch is admitted after both results, not between them', async () => {
    const gate = deferred();
    const started = deferred();
    let starts = 0;
    const onStart = () => ++starts === 2 && started.resolve();
    const { agent, model } = scripted(
      [{ toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] }, { text: 'ok' }],
      { tools: [waitingTool('a', gate.promise, onStart), waitingTool('b', gate.promise, onStart)] },
    );
    const stream = agent.prompt('both');
    await started.promise;
    agent.steer('stop after these');
    gate.resolve();
    await stream.result();
    expect(requestTexts(model, 1).slice(1)).toEqual(['toolCall toolCall', 'a done', 'b done', 'stop after these']);
  });

  it('a follow-up runs only when the agent would otherwise stop', async () => {
    const gate = deferred();
    const started = deferred();
    const { agent, model } = scripted([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'first answer' }, { text: 'second answer' }], { tools: [waitingTool('slow', gate.promise, started.resolve)] });
    const stream = agent.prompt('go');
    await started.promise;
    agent.followUp('and then summarise');
    gate.resolve();
    await stream.result();
    expect(requestTexts(model, 1).at(-1)).toBe('slow done');
    expect(requestTexts(model, 2).slice(-2)).toEqual(['first answer', 'and then summarise']);
  });

  it('an input selected but not admitted when the run is aborted stays queued and recoverable', async () => {
    const { agent, model } = scripted([{ text: 'first' }, { text: 'never' }]);
    tapHook(agent.hooks.inputTransform, 'abort-on-select', (request: InputTransformRequest) => {
      if (request.id === 'q:1') agent.abort();
    });
    agent.queueInput('q:1', 'later please', 'followUp');
    const result = await agent.prompt('hello').result();
    expect(result.status).toBe('aborted');
    expect(model.callCount).toBe(1);
    expect(agent.pendingInputs()).toMatchObject([{ id: 'q:1', state: 'queued', text: 'later please' }]);
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('scenario 9: drainInputs(prefix) removes only unconsumed inputs with that prefix', async () => {
    const { agent } = scripted([{ text: 'idle' }]);
    agent.queueInput('a:1', 'one', 'followUp');
    agent.queueInput('b:1', 'two', 'followUp');
    agent.queueInput('a:2', 'three', 'steer');
    agent.steer('plain');
    expect(agent.drainInputs('a:').map((input) => input.id).sort()).toEqual(['a:1', 'a:2']);
    expect(agent.pendingInputs().map((input) => input.id)).toEqual(['b:1']);
  });

  it('enforces queue limits and lets queued inputs be edited, moved and removed', () => {
    const { agent } = scripted([]);
    agent.queueInput('x', 'first', 'followUp');
    agent.queueInput('y', 'second', 'followUp');
    agent.changeInput('y', 'move', -1);
    agent.changeInput('x', 'edit', 'first, edited');
    expect(agent.pendingInputs().map((input) => [input.id, input.text])).toEqual([['y', 'second'], ['x', 'first, edited']]);
    expect(() => agent.changeInput('y', 'move', -1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    agent.changeInput('x', 'remove');
    expect(() => agent.queueInput('y', 'dup', 'steer')).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => agent.steer('x'.repeat(16 * 1024 + 1))).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED' }));
    for (let index = 0; index < 31; index++) agent.steer(`s${index}`);
    expect(() => agent.steer('one too many')).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED' }));
  });

  it('refuses a queued input whose images are not image parts, so nothing malformed can reach history', async () => {
    const { agent } = scripted([{ text: 'ok' }]);
    expect(() => agent.steer('look', [{ type: 'image', mimeType: 'image/png' } as never])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => agent.followUp('look', ['not an image' as never])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => agent.queueInput('q', 'look', 'steer', [{ type: 'text', text: 'x' } as never])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => agent.steer('look', 'abc' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(agent.pendingInputs()).toEqual([]);
    agent.steer('fine', [{ type: 'image', mimeType: 'image/png', data: PNG }]);
    await agent.prompt('go').result();
    expect(agent.messages.filter((message) => message.role === 'user')).toHaveLength(2);
  });
});

describe('inputTransform', () => {
  it('scenario 10: rejecting the prompt means zero model calls and no user message; a rejected plain steer is quarantined and not replayed', async () => {
    const { agent, model } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'after tool' }, { text: 'next' }], { tools: [recordingTool('t').tool] });
    tapHook(agent.hooks.inputTransform, 'guard', (request: InputTransformRequest) => (request.text.startsWith('reject:') ? { action: 'reject', reason: 'not allowed here' } : undefined));
    const refused = await agent.prompt('reject: the first').result();
    expect(refused).toMatchObject({ status: 'rejected', errorMessage: 'not allowed here' });
    expect(model.callCount).toBe(0);
    expect(agent.messages).toEqual([]);

    agent.steer('reject: a steer');
    await agent.prompt('fine').result();
    const quarantined = agent.drainRejectedMessages();
    expect(quarantined).toMatchObject([{ lane: 'steer', reason: 'not allowed here', message: { role: 'user', content: 'reject: a steer' } }]);
    await agent.prompt('again').result();
    expect(model.requests.flatMap((request) => request.messages).some((message) => message.role === 'user' && message.content === 'reject: a steer')).toBe(false);
    expect(agent.drainRejectedMessages()).toEqual([]);
  });

  it('a system input (the host\'s own, e.g. a scheduled job) is not seen by the taps that filter human input', async () => {
    const { agent, model } = scripted([{ text: 'ran' }]);
    const seen: string[] = [];
    tapHook(agent.hooks.inputTransform, 'guard', (request: InputTransformRequest) => {
      seen.push(request.text);
      return { action: 'reject', reason: 'humans only in office hours' };
    });
    expect(await agent.prompt('nightly report', { system: true }).result()).toMatchObject({ status: 'completed' });
    expect(seen).toEqual([]);
    expect(model.callCount).toBe(1);
    expect(await agent.prompt('a person').result()).toMatchObject({ status: 'rejected' });
    expect(seen).toEqual(['a person']);
  });

  it('a rejected identified input stays recoverable and is not selected again', async () => {
    const { agent, model } = scripted([{ text: 'one' }, { text: 'two' }]);
    tapHook(agent.hooks.inputTransform, 'guard', (request: InputTransformRequest) => (request.id === 'q:1' ? { action: 'reject', reason: 'later' } : undefined));
    agent.queueInput('q:1', 'queued text', 'followUp');
    await agent.prompt('hello').result();
    expect(agent.pendingInputs()).toMatchObject([{ id: 'q:1', state: 'rejected', rejectReason: 'later' }]);
    await agent.prompt('again').result();
    expect(model.callCount).toBe(2);
    expect(agent.drainInputs()).toMatchObject([{ id: 'q:1', text: 'queued text' }]);
  });

  it('scenario 11: handled on the only input means zero model calls, one input_handled and no input_consumed', async () => {
    const { agent, model } = scripted([{ text: 'never' }]);
    tapHook(agent.hooks.inputTransform, 'local-help', () => ({ action: 'handled', feedback: 'answered locally' }));
    const second = { called: false };
    tapHook(agent.hooks.inputTransform, 'after', () => void (second.called = true));
    const events = await collect(agent.prompt({ role: 'user', content: [{ type: 'text', text: 'help' }, { type: 'image', data: PNG, mimeType: 'image/png' }], timestamp: 5 }));
    const result = await agent.prompt('help again').result();
    expect(result.status).toBe('handled');
    expect(model.callCount).toBe(0);
    expect(second.called).toBe(false);
    expect(events.filter((event) => event.type === 'input_handled')).toHaveLength(1);
    expect(events.some((event) => event.type === 'input_consumed')).toBe(false);
    const receipts = agent.drainHandledInputs();
    expect(receipts[0]).toMatchObject({ source: 'prompt', text: 'help', feedback: 'answered locally', images: [{ type: 'image', mimeType: 'image/png' }] });
    expect(receipts).toHaveLength(2);
    expect(agent.messages).toEqual([]);
  });

  it('set-aside inputs count against the queue limit until drained (no unbounded quarantine)', async () => {
    const { agent } = scripted([]);
    tapHook(agent.hooks.inputTransform, 'answer-all', () => ({ action: 'handled', feedback: 'done here' }));
    for (let i = 0; i < 32; i++) await agent.prompt(`local ${i}`).result();
    expect(() => agent.steer('one more')).toThrow(/32 rejected or handled inputs are waiting to be drained/);
    expect(() => agent.prompt('and another')).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', hint: expect.stringContaining('drainHandledInputs()') }));
    expect(agent.drainHandledInputs()).toHaveLength(32);
    expect((await agent.prompt('after draining').result()).status).toBe('handled');
  });

  it('scenario 12: transform changes the text, keeps the images, and "/quit" reaches the model verbatim', async () => {
    const { agent, model } = scripted([{ text: 'ok' }]);
    const seen: InputTransformRequest[] = [];
    tapHook(agent.hooks.inputTransform, 'first', (request: InputTransformRequest) => {
      seen.push(request);
      return 'rewritten';
    });
    tapHook(agent.hooks.inputTransform, 'second', (request: InputTransformRequest) => {
      seen.push(request);
      return { action: 'transform', text: '/quit' };
    });
    await agent.prompt({ role: 'user', content: [{ type: 'text', text: 'original' }, { type: 'image', data: PNG, mimeType: 'image/png' }], timestamp: 7 }).result();
    expect(seen[0]!.images).toEqual([{ mimeType: 'image/png', bytes: expect.any(Number) }]);
    expect(JSON.stringify(seen)).not.toContain(PNG);
    expect(seen[1]!.text).toBe('rewritten');
    expect(agent.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: '/quit' }, { type: 'image', data: PNG, mimeType: 'image/png' }], timestamp: 7 });
    expect(requestTexts(model, 0)).toEqual(['/quit [image image/png]']);
    expect(model.callCount).toBe(1);
  });

  it('unknown actions, extra fields and over-limit results refuse admission', async () => {
    const answers: unknown[] = [{ action: 'explode' }, { action: 'transform', text: 'x', extra: 1 }, { action: 'handled', feedback: '' }, { action: 'reject', reason: 'r'.repeat(2001) }, 'y'.repeat(1024 * 1024 + 1)];
    for (const answer of answers) {
      const { agent, model } = scripted([{ text: 'never' }]);
      tapHook(agent.hooks.inputTransform, 'bad', () => answer);
      const result = await agent.prompt('hi').result();
      expect(result.status).toBe('rejected');
      expect(result.errorMessage).toContain('input transform "bad"');
      expect(model.callCount).toBe(0);
    }
  });
});
