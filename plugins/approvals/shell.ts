/**
 * Reads off every command a bash line runs, for the approval rules. The line
 * is parsed with tree-sitter-bash (wasm, loaded once on first use); every
 * `command` node counts, wherever it sits (lists, pipelines, `$(…)`,
 * subshells, bodies of if/for/functions). Wrappers are seen through: `sudo`,
 * `env`, `nice`, `time`, `xargs`, `timeout`, `nohup`, `exec`, `command`,
 * `find -exec`, and `sh|bash -c STRING` is parsed again. What cannot be read
 * for certain (a syntax error, `eval`, a computed command name or argument,
 * a write through a redirect, an unknown wrapper option, too deep a nesting)
 * is reported as `uncertain`: such a command is never allowed by a rule's
 * prefix, only asked or denied.
 */
import { createRequire } from 'node:module';
import { LIMITS, utf8Bytes } from '../../core/index.js';
import type { Node as SyntaxNode, Parser as TsParser } from 'web-tree-sitter';

/** One command the line runs. */
export interface ShellCommand {
  /** The static words; for an uncertain command, the static words up to the first it cannot read. */
  argv: string[];
  /** Why it cannot be read for certain; unset when every word is static. */
  uncertain?: string;
}

/** The commands of a line, or why the line as a whole cannot be read. */
export interface ShellAnalysis {
  commands: ShellCommand[];
  /** Set when the line could not be parsed at all (syntax error, too long). */
  unparseable?: string;
}

let parserPromise: Promise<TsParser> | undefined;

/** The bash parser, created once per process (init + grammar ~200 ms). */
function bashParser(): Promise<TsParser> {
  parserPromise ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return parser;
  })();
  parserPromise.catch(() => (parserPromise = undefined));
  return parserPromise;
}

/** Loads the parser ahead of the first call (the gateway does at start). */
export async function preloadShellParser(): Promise<void> {
  await bashParser();
}

/** Analyses one bash line. */
export async function analyzeShell(source: string): Promise<ShellAnalysis> {
  const parser = await bashParser();
  const commands: ShellCommand[] = [];
  const unparseable = collect(parser, source, 0, commands);
  return unparseable ? { commands, unparseable } : { commands };
}

/**
 * The words of one plain command line written as a setting (`$VISUAL` =
 * `code --wait`, `'/path with space/ed' -x`): quotes and backslashes are
 * read as bash reads them, and nothing is evaluated. Anything more than
 * static words (`$x`, `$(…)`, `;`, pipes, redirects, `A=1 cmd`) is refused
 * with the reason, since only a shell could run it.
 */
export async function splitCommandLine(source: string): Promise<{ argv: string[] } | { problem: string }> {
  if (utf8Bytes(source) > LIMITS.shellCommandLineBytes) return { problem: `it is longer than ${LIMITS.shellCommandLineBytes} bytes` };
  const parser = await bashParser();
  const tree = parser.parse(source);
  if (!tree) return { problem: 'the shell parser gave no result' };
  try {
    if (tree.rootNode.hasError) return { problem: 'it has a shell syntax error (an unclosed quote?)' };
    const [command, ...more] = tree.rootNode.namedChildren;
    if (!command) return { problem: 'it is empty' };
    if (more.length || command.type !== 'command') return { problem: 'it is more than one plain command (a list, pipe, redirect or comment needs a shell)' };
    const argv: string[] = [];
    for (const child of command.namedChildren) {
      const word = child?.type === 'command_name' ? child.namedChildren[0] : child;
      const text = word && child && (child.type === 'command_name' || command.childrenForFieldName('argument').some((argument) => argument?.id === child.id)) ? staticWord(word) : undefined;
      if (text === undefined) return { problem: `"${clip(child?.text ?? '')}" would need a shell to expand it` };
      argv.push(text);
    }
    return { argv };
  } finally {
    tree.delete();
  }
}

function collect(parser: TsParser, source: string, depth: number, out: ShellCommand[]): string | undefined {
  if (utf8Bytes(source) > LIMITS.approvalShellBytes) return `the command is longer than ${LIMITS.approvalShellBytes} bytes`;
  if (depth > LIMITS.approvalShellDepth) return `commands nest deeper than ${LIMITS.approvalShellDepth} levels`;
  const tree = parser.parse(source);
  if (!tree) return 'the shell parser gave no result';
  try {
    if (tree.rootNode.hasError) return 'the command has a shell syntax error';
    walk(tree.rootNode, (node) => {
      if (node.type === 'command') commandOf(parser, node, depth, out);
      else if (node.type === 'declaration_command' || node.type === 'unset_command') declarationOf(node, out);
      else if (node.type === 'file_redirect' || node.type === 'heredoc_redirect' || node.type === 'herestring_redirect') redirectOf(node, out);
    });
    return undefined;
  } finally {
    tree.delete();
  }
}

function walk(node: SyntaxNode, visit: (node: SyntaxNode) => void): void {
  visit(node);
  for (const child of node.namedChildren) if (child) walk(child, visit);
}

/** The text of a word that expands to itself, or undefined when it is computed ($x, $(…), `…`, $'…', arithmetic). */
export function staticWord(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return unescape(node.text);
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      let text = '';
      for (const child of node.namedChildren) {
        if (!child || child.type !== 'string_content') return undefined;
        text += child.text.replace(/\\([$`"\\\n])/g, '$1');
      }
      return text;
    }
    case 'concatenation': {
      let text = '';
      for (const child of node.namedChildren) {
        const part = child ? staticWord(child) : undefined;
        if (part === undefined) return undefined;
        text += part;
      }
      return text;
    }
    default:
      return undefined;
  }
}

function unescape(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

function commandOf(parser: TsParser, node: SyntaxNode, depth: number, out: ShellCommand[]): void {
  const name = node.childForFieldName('name');
  const nameNode = name?.namedChildren[0] ?? name;
  const words: Array<string | undefined> = [nameNode ? staticWord(nameNode) : undefined];
  for (const argument of node.childrenForFieldName('argument')) words.push(argument ? staticWord(argument) : undefined);
  const firstDynamic = words.indexOf(undefined);
  if (firstDynamic === 0) {
    out.push({ argv: [], uncertain: `the command name is computed (${clip(nameNode?.text ?? '')})` });
    return;
  }
  const argv = (firstDynamic === -1 ? words : words.slice(0, firstDynamic)) as string[];
  if (firstDynamic !== -1) {
    // Wrappers still count with what is readable of them, so a deny on `sudo` or `rm` holds.
    resolve(parser, argv, depth, out, `an argument is computed (${clip(node.childrenForFieldName('argument')[firstDynamic - 1]?.text ?? '')})`);
    return;
  }
  resolve(parser, argv, depth, out);
}

/** `export A=$(…)`, `declare -x`, `local`, `unset`: the keyword with its readable words. */
function declarationOf(node: SyntaxNode, out: ShellCommand[]): void {
  const argv = [node.firstChild?.text ?? node.type];
  for (const child of node.namedChildren) {
    if (!child) continue;
    const text = child.type === 'variable_assignment' ? assignmentText(child) : staticWord(child) ?? (child.type === 'variable_name' ? child.text : undefined);
    if (text === undefined) {
      out.push({ argv, uncertain: `a word of "${argv[0]}" is computed (${clip(child.text)})` });
      return;
    }
    argv.push(text);
  }
  out.push({ argv });
}

function assignmentText(node: SyntaxNode): string | undefined {
  const name = node.childForFieldName('name')?.text ?? '';
  const value = node.childForFieldName('value');
  if (!value) return `${name}=`;
  const text = staticWord(value);
  return text === undefined ? undefined : `${name}=${text}`;
}

/** A write through `>`/`>>`/`&>` (except to /dev/null) is a command of its own, always asked. */
function redirectOf(node: SyntaxNode, out: ShellCommand[]): void {
  if (node.type !== 'file_redirect') return;
  const operator = node.children.find((child) => child && !child.isNamed)?.text ?? '';
  if (!operator.includes('>')) return;
  const destination = node.childForFieldName('destination');
  const target = destination ? staticWord(destination) : undefined;
  if (target === '/dev/null') return;
  // `2>&1`, `>&-`: duplicating or closing a descriptor writes no file.
  if ((operator === '>&' || operator === '<&') && target !== undefined && /^(\d+-?|-)$/.test(target)) return;
  out.push({ argv: [], uncertain: `it writes to ${target === undefined ? 'a computed file name' : `"${target}"`} through a redirect` });
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'busybox-sh']);

/** A wrapper: how many words its options take, and where the command it runs starts. */
interface Wrapper {
  /** Options that take a value as the next word. */
  valued: ReadonlySet<string>;
  /** Options without a value. */
  flags: ReadonlySet<string>;
  /** Leading positional words before the command (timeout's DURATION). */
  positional?: number;
  /** `NAME=VALUE` words before the command (env). */
  assignments?: boolean;
  /** It runs the command with other rights: it counts as a command of its own too. */
  privileged?: boolean;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  sudo: { valued: set('-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir'), flags: set('-E', '-H', '-n', '-k', '-S', '-b', '-P', '-A', '--preserve-env', '--non-interactive', '--login', '-i', '-s'), privileged: true },
  doas: { valued: set('-u', '-C'), flags: set('-n', '-s'), privileged: true },
  env: { valued: set('-u', '--unset', '-C', '--chdir'), flags: set('-i', '--ignore-environment', '-0', '--null', '-'), assignments: true },
  nice: { valued: set('-n', '--adjustment'), flags: set() },
  ionice: { valued: set('-c', '-n', '-p', '--class', '--classdata'), flags: set('-t') },
  time: { valued: set('-f', '-o', '--format', '--output'), flags: set('-p', '-v', '-a', '--portability', '--verbose', '--append') },
  nohup: { valued: set(), flags: set() },
  exec: { valued: set('-a'), flags: set('-c', '-l') },
  command: { valued: set(), flags: set('-p') },
  builtin: { valued: set(), flags: set() },
  timeout: { valued: set('-s', '-k', '--signal', '--kill-after'), flags: set('--preserve-status', '--foreground', '-v', '--verbose'), positional: 1 },
  stdbuf: { valued: set('-i', '-o', '-e'), flags: set() },
  xargs: { valued: set('-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace'), flags: set('-0', '-r', '-t', '-x', '-p', '--null', '--no-run-if-empty', '--verbose', '--exit', '--interactive') },
};

/** Judges one static command: sees through wrappers and `sh -c`, then records what it runs. */
function resolve(parser: TsParser, argv: string[], depth: number, out: ShellCommand[], uncertain?: string): void {
  if (depth > LIMITS.approvalShellDepth) {
    out.push({ argv, uncertain: `commands nest deeper than ${LIMITS.approvalShellDepth} levels` });
    return;
  }
  const program = basename(argv[0] ?? '');
  if (program === 'eval' || program === 'source' || program === '.') {
    out.push({ argv, uncertain: `"${program}" runs text the rules cannot read` });
    return;
  }
  const wrapper = WRAPPERS[program];
  if (wrapper) {
    const inner = unwrap(wrapper, argv);
    if (typeof inner === 'string') {
      out.push({ argv, uncertain: inner });
      return;
    }
    if (inner.length === 0) {
      // `sudo -v`, a bare `xargs` (which runs echo): the wrapper is the command.
      out.push(uncertain ? { argv, uncertain } : { argv });
      return;
    }
    if (wrapper.privileged) out.push({ argv: argv.slice(0, argv.length - inner.length) });
    resolve(parser, inner, depth + 1, out, uncertain);
    return;
  }
  if (SHELLS.has(program)) {
    const script = shellScript(argv);
    if (script === 'missing') {
      out.push({ argv, uncertain: uncertain ?? `"${program} -c" is given a computed script` });
      return;
    }
    if (script !== undefined) {
      const problem = collect(parser, script, depth + 1, out);
      if (problem) out.push({ argv, uncertain: `its script cannot be read: ${problem}` });
      return;
    }
  }
  if (program === 'find') {
    findExec(parser, argv, depth, out, uncertain);
    return;
  }
  out.push(uncertain ? { argv, uncertain } : { argv });
}

function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash === -1 ? word : word.slice(slash + 1);
}

/** The command a wrapper runs (its words), or why it cannot be told. */
function unwrap(wrapper: Wrapper, argv: string[]): string[] | string {
  let index = 1;
  let positional = wrapper.positional ?? 0;
  const name = basename(argv[0]!);
  while (index < argv.length) {
    const word = argv[index]!;
    if (word === '--') return argv.slice(index + 1);
    if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      index++;
      continue;
    }
    if (word.startsWith('-') && word !== '-') {
      const [option] = word.split('=', 1) as [string];
      if (wrapper.valued.has(option)) {
        index += word.includes('=') ? 1 : 2;
        continue;
      }
      if (wrapper.flags.has(word)) {
        index++;
        continue;
      }
      // `nice -5`, `xargs -n1`, `sudo -u0`: a known valued short option glued to its value.
      if (/^-\d+$/.test(word) && name === 'nice') {
        index++;
        continue;
      }
      if (word.length > 2 && !word.startsWith('--') && wrapper.valued.has(word.slice(0, 2))) {
        index++;
        continue;
      }
      return `"${name}" has an option the rules do not know (${word}), so the command it runs cannot be told`;
    }
    if (positional > 0) {
      positional--;
      index++;
      continue;
    }
    return argv.slice(index);
  }
  return [];
}

/** The `-c` script of a shell invocation; undefined when it runs a file or stdin (then the shell itself is the command). */
function shellScript(argv: string[]): string | 'missing' | undefined {
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === '--' || !word.startsWith('-')) return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) return argv[index + 1] ?? 'missing';
    if (word === '-o' || word === '+o') index++;
  }
  return undefined;
}

/** `find … -exec CMD … ;` runs CMD: it is judged as a command of its own. */
function findExec(parser: TsParser, argv: string[], depth: number, out: ShellCommand[], uncertain?: string): void {
  out.push(uncertain ? { argv, uncertain } : { argv });
  for (let index = 1; index < argv.length; index++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[index]!)) continue;
    let end = index + 1;
    while (end < argv.length && argv[end] !== ';' && argv[end] !== '+') end++;
    const inner = argv.slice(index + 1, end);
    if (inner.length) resolve(parser, inner, depth + 1, out, uncertain);
    index = end;
  }
}
