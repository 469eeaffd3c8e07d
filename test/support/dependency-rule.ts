/**
 * The dependency rule of DESIGN.md as code. An arrow means "may import":
 *   core → hooks (runtime); hooks → core (types only); entities → core;
 *   plugins → core, hooks, entities, and another plugin only via its index.ts
 *   (or its tokens.ts: the light face of tokens and contracts, for imports at load);
 *   commands → anything. Nothing else crosses a layer.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Layer = 'core' | 'hooks' | 'plugins' | 'entities' | 'commands';
export const LAYERS: readonly Layer[] = ['core', 'hooks', 'plugins', 'entities', 'commands'];

/** The files of a plugin that other plugins may import. */
const PUBLIC_FACES = new Set(['index.ts', 'tokens.ts']);

export interface ImportEdge {
  from: string;
  specifier: string;
  typeOnly: boolean;
}

export interface Violation {
  from: string;
  to: string;
  rule: string;
}

// `import x from 'y'`, `import type {x} from 'y'`, `export * from 'y'`, `import 'y'`, `import('y')`.
const STATIC_IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[\s\S]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import of one source file. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(STATIC_IMPORT)) {
    edges.push({ from: file, specifier: match[3]!, typeOnly: Boolean(match[2]) });
  }
  for (const match of text.matchAll(DYNAMIC_IMPORT)) {
    // `import('x').T` in a type position is type-only; a call is not.
    const after = text.slice((match.index ?? 0) + match[0].length, (match.index ?? 0) + match[0].length + 1);
    edges.push({ from: file, specifier: match[1]!, typeOnly: after === '.' });
  }
  return edges.filter((edge) => edge.specifier.startsWith('.'));
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.split(path.sep).includes('node_modules'));
}

function layerOf(root: string, file: string): { layer?: Layer; plugin?: string; rest: string[] } {
  const parts = path.relative(root, file).split(path.sep);
  const layer = LAYERS.find((candidate) => candidate === parts[0]);
  return { layer, plugin: layer === 'plugins' ? parts[1] : undefined, rest: parts.slice(layer === 'plugins' ? 2 : 1) };
}

/** Checks one edge; returns the broken rule or undefined. */
function ruleBroken(root: string, edge: ImportEdge): string | undefined {
  const target = path.resolve(path.dirname(edge.from), edge.specifier.replace(/\.js$/, '.ts'));
  const from = layerOf(root, edge.from);
  const to = layerOf(root, target);
  if (!from.layer || !to.layer) return to.layer ? undefined : `${from.layer} may not import outside the source layers`;
  if (from.layer === to.layer && from.layer !== 'plugins') return undefined;
  switch (from.layer) {
    case 'commands':
      return undefined;
    case 'core':
      return to.layer === 'hooks' ? undefined : `core may import only hooks, not ${to.layer}`;
    case 'hooks':
      return to.layer === 'core' && edge.typeOnly ? undefined : `hooks may import core for types only (import type), not ${to.layer} at runtime`;
    case 'entities':
      return to.layer === 'core' ? undefined : `entities may import only core, not ${to.layer}`;
    case 'plugins':
      if (to.layer === 'core' || to.layer === 'hooks' || to.layer === 'entities') return undefined;
      if (to.layer === 'plugins') {
        if (to.plugin === from.plugin) return undefined;
        return PUBLIC_FACES.has(to.rest.join('/')) ? undefined : `plugin ${from.plugin} may import plugin ${to.plugin} only through its index.ts (or its light face, tokens.ts)`;
      }
      return `plugins may not import ${to.layer}`;
  }
}

/** Every violation of the rule under `root`. */
export function checkDependencyRule(root: string): Violation[] {
  const violations: Violation[] = [];
  for (const layer of LAYERS) {
    for (const file of sourceFiles(path.join(root, layer))) {
      for (const edge of importsOf(file, fs.readFileSync(file, 'utf8'))) {
        const rule = ruleBroken(root, edge);
        if (rule) violations.push({ from: path.relative(root, file), to: edge.specifier, rule });
      }
    }
  }
  return violations;
}
