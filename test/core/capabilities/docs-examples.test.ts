/**
 * The example embedded in docs/capabilities.md is a real file: this suite
 * typechecks it against the built package, runs it, and checks the document
 * embeds it verbatim.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const examples = join(root, 'docs/examples/capabilities');

describe('docs/capabilities.md example', () => {
  it('typechecks against the built package and is embedded verbatim', () => {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(examples, 'tsconfig.json')], { cwd: root, stdio: 'pipe' });
    const doc = readFileSync(join(root, 'docs/capabilities.md'), 'utf8');
    expect(doc).toContain(readFileSync(join(examples, 'combine-and-restore.ts'), 'utf8').trim());
  });

  it('combines two sets, restores the saved skill lifecycle, and refuses a set without the skill', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const module = (await import(join(examples, 'combine-and-restore.ts'))) as { main(): Promise<string[]> };
      const [active, refused] = await module.main();
      expect(active).toBe('session:flow');
      expect(refused).toMatch(/cannot restore into this capability assembly \(no capabilities\): the snapshot's session skill "flow" is not in this agent's skill index/);
      expect(log.mock.calls[0]![0]).toEqual(['flow', 'session_note', 'skill']);
    } finally {
      log.mockRestore();
    }
  });
});
