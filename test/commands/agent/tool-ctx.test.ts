import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToolCtx } from '../../../commands/agent/_lib/tool-ctx.js';
import { LIMITS } from '../../../core/index.js';
import { tempDir } from '../../support/temp.js';

describe('--tool-ctx', () => {
  it('reads an inline object or an @file relative to the working directory', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'ctx.json'), '{"team": "a"}');
    expect(parseToolCtx('{"k": 1}', dir)).toEqual({ k: 1 });
    expect(parseToolCtx('@ctx.json', dir)).toEqual({ team: 'a' });
  });

  it('refuses a file over the limit before reading it, and non-objects', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'big.json'), `{"x": "${'a'.repeat(LIMITS.toolCtxBytes)}"}`);
    expect(() => parseToolCtx('@big.json', dir)).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(/over the limit of 1048576/) }));
    expect(() => parseToolCtx('[1]', dir)).toThrow(/must be a JSON object/);
    expect(() => parseToolCtx('@missing.json', dir)).toThrow(/cannot read --tool-ctx file .*missing\.json: ENOENT/);
  });
});
