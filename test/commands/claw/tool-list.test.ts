import { describe, expect, it } from 'vitest';
import { parseToolSelection } from '../../../commands/claw/_lib/tool-list.js';
import { XdogError } from '../../../core/errors.js';

const tools = ['bash', 'read', 'write', 'ls'];

describe('parseToolSelection', () => {
  it('takes names and 1-based numbers, in the order given, without repeats', () => {
    expect(parseToolSelection('2, bash ,4,read', tools)).toEqual(['read', 'bash', 'ls']);
  });

  it('takes all and none (any case)', () => {
    expect(parseToolSelection('ALL', tools)).toEqual(tools);
    expect(parseToolSelection(' none ', tools)).toEqual([]);
  });

  it('refuses unknown names, out-of-range numbers and empty items, naming them', () => {
    const error = (answer: string): XdogError => {
      try {
        parseToolSelection(answer, tools);
      } catch (caught) {
        return caught as XdogError;
      }
      throw new Error(`"${answer}" was accepted`);
    };
    expect(error('bash,grep,9').message).toBe('unknown tools: grep, 9');
    expect(error('0').message).toBe('unknown tool: 0');
    expect(error('bash,,read')).toMatchObject({ code: 'USAGE' });
    expect(error('')).toMatchObject({ code: 'USAGE' });
    expect(error('Bash').message).toBe('unknown tool: Bash');
  });
});
