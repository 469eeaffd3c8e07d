import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { checkDependencyRule } from '../support/dependency-rule.js';
import { tempDir, writeTree } from '../support/temp.js';

describe('dependency rule of DESIGN.md', () => {
  it('holds for the repository', () => {
    expect(checkDependencyRule(repoRoot)).toEqual([]);
  });

  it('catches each kind of violation in a tree that breaks it', () => {
    const root = tempDir();
    writeTree(root, {
      'core/a.ts': `import { x } from '../plugins/mcp/index.js';\nimport '../hooks/agent.js';`,
      'core/b.ts': `export * from '../entities/store.js';`,
      'hooks/h.ts': `import { Agent } from '../core/agent.js';\nimport type { Msg } from '../core/messages.js';`,
      'entities/store.ts': `import { helper } from '../plugins/mcp/index.js';\nimport type { X } from '../core/x.js';`,
      'plugins/mcp/index.ts': `import { y } from '../skills/internal/y.js';\nimport { z } from '../skills/index.js';\nimport { c } from '../../commands/chat.js';`,
      'commands/chat.ts': `import { everything } from '../plugins/mcp/registry.js';`,
      'core/lazy.ts': `const m = await import('../commands/chat.js');\ntype T = import('../plugins/mcp/index.js').T;`,
    });
    const found = checkDependencyRule(root).map((v) => `${v.from} -> ${v.to}`);
    expect(found.sort()).toEqual(
      [
        'core/a.ts -> ../plugins/mcp/index.js',
        'core/b.ts -> ../entities/store.js',
        'core/lazy.ts -> ../commands/chat.js',
        'core/lazy.ts -> ../plugins/mcp/index.js',
        'entities/store.ts -> ../plugins/mcp/index.js',
        'hooks/h.ts -> ../core/agent.js',
        'plugins/mcp/index.ts -> ../skills/internal/y.js',
        'plugins/mcp/index.ts -> ../../commands/chat.js',
      ].sort(),
    );
  });
});
