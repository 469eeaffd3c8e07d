/**
 * The examples embedded in docs/agent.md are real files: this suite
 * typechecks them against the built package, runs each one, and checks the
 * document still embeds each file verbatim.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const examples = join(root, 'docs/examples/agent');
const names = ['quickstart', 'hooks', 'steering', 'snapshots', 'cancel', 'compaction'];

async function run(name: string): Promise<unknown> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    const module = (await import(join(examples, `${name}.ts`))) as { main(): Promise<unknown> };
    return await module.main();
  } finally {
    log.mockRestore();
  }
}

describe('docs/agent.md examples', () => {
  it('typecheck against the built package', () => {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(examples, 'tsconfig.json')], { cwd: root, stdio: 'pipe' });
  });

  it('are embedded in docs/agent.md verbatim', () => {
    const doc = readFileSync(join(root, 'docs/agent.md'), 'utf8');
    for (const name of names) expect(doc, `${name}.ts`).toContain(readFileSync(join(examples, `${name}.ts`), 'utf8').trim());
  });

  it('quickstart answers after one tool call', async () => {
    expect(await run('quickstart')).toBe('2 + 3 = 5');
  });

  it('hooks blocks the command, trims the input and handles /help', async () => {
    const messages = (await run('hooks')) as Array<{ role: string; content: unknown }>;
    expect(messages[0]).toMatchObject({ role: 'user', content: 'clean the disk' });
    expect(JSON.stringify(messages[2])).toContain('destructive commands are not allowed');
  });

  it('steering admits the steer, then the follow-up', async () => {
    expect(await run('steering')).toEqual(['Build it', 'also run the tests', 'then summarise']);
  });

  it('snapshots restore whole and split', async () => {
    expect(await run('snapshots')).toBe(2);
  });

  it('compaction summarizes the older turns and the next request starts with the summary', async () => {
    const texts = (await run('compaction')) as string[];
    expect(texts[0]).toMatch(/^Summary of the earlier part of this conversation \(compacted\):\n\n## Goal\nShip the parse\(\) fix\./);
    expect(texts.slice(1)).toEqual(['Write the release notes', 'Done: the release notes are in CHANGES.md.', 'Did we fix parse()?']);
  });

  it('cancel aborts a running tool', async () => {
    expect(await run('cancel')).toBe('aborted');
  });
});
