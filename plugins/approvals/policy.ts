/**
 * The approval policy: judges one tool call against `approvals.mode` and the
 * ordered rules. For every call (and for bash, every command the line runs)
 * the first matching rule decides; no rule, the mode's default. A bash
 * command that cannot be read for certain is never allowed by a `command`
 * prefix: only a rule for the whole tool (no `command`) or a deny reaches
 * it, else it is asked. Across the commands of one line, deny beats ask
 * beats allow. Mode `never` asks nobody: what would be asked is denied.
 * Rules a person learned ("always allow", stored per group) are judged only
 * where the config's rules left the call to the mode's default of asking:
 * they never override a configured rule, and a bash one allows exactly one
 * command (every word equal), never a prefix of a longer one.
 */
import type { ApprovalMode, ApprovalRule, ApprovalsConfig } from '../../core/index.js';
import { analyzeShell, type ShellCommand } from './shell.js';

/** The policy's verdict on one call. */
export type ApprovalDecision = { action: 'allow' } | { action: 'deny'; reason: string } | { action: 'ask'; reason: string };

/** What the policy knows of the call. */
export interface JudgedCall {
  tool: string;
  args: Record<string, unknown>;
  /** True for the built-in local read tools (identity, never a name or an annotation). */
  readOnly: boolean;
}

type Action = 'allow' | 'deny' | 'ask';

/** A rule a person added with "always allow": a whole tool, or for bash one exact command. */
export interface LearnedRule {
  tool: string;
  /** bash only: the command's words, all of which must be equal. */
  argv?: readonly string[];
}

/** The learned rules in effect, read only when the config's rules would ask. */
export type LearnedRules = () => Promise<readonly LearnedRule[]>;

function sameArgv(rule: LearnedRule, argv: readonly string[]): boolean {
  return rule.argv !== undefined && rule.argv.length === argv.length && rule.argv.every((word, index) => word === argv[index]);
}

function learnedAllows(learned: readonly LearnedRule[], tool: string, argv?: readonly string[]): boolean {
  return learned.some((rule) => rule.tool === tool && (argv === undefined ? rule.argv === undefined : sameArgv(rule, argv)));
}

function actionOf(rule: ApprovalRule): { action: Action; tool: string } {
  if (rule.deny !== undefined) return { action: 'deny', tool: rule.deny };
  if (rule.ask !== undefined) return { action: 'ask', tool: rule.ask };
  return { action: 'allow', tool: rule.allow! };
}

const globCache = new Map<string, RegExp>();

/** A glob as a regular expression: `**` any text, `*` any text but "/" (any text with `wordGlob`), `?` one character. */
export function globMatches(pattern: string, text: string, wordGlob = false): boolean {
  const key = `${wordGlob ? 'w' : 'p'}${pattern}`;
  let regex = globCache.get(key);
  if (!regex) {
    let source = '';
    for (let index = 0; index < pattern.length; index++) {
      const char = pattern[index]!;
      if (char === '*' && pattern[index + 1] === '*') {
        source += '.*';
        index++;
      } else if (char === '*') source += wordGlob ? '.*' : '[^/]*';
      else if (char === '?') source += wordGlob ? '.' : '[^/]';
      else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    regex = new RegExp(`^${source}$`, 's');
    if (globCache.size > 1000) globCache.clear();
    globCache.set(key, regex);
  }
  return regex.test(text);
}

/** A word of a command pattern is a glob over one word (`*` may cross "/" there). */
function wordMatches(pattern: string, word: string): boolean {
  return globMatches(pattern, word, true);
}

/** Splits a rule's command pattern into words (quotes group, as in the shell). */
export function patternWords(pattern: string): string[] {
  const words: string[] = [];
  for (const match of pattern.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/** True when `argv` starts with the pattern's words; the program also matches by its base name (`rm` matches `/bin/rm`). */
function commandMatches(pattern: string, argv: readonly string[]): boolean {
  const words = patternWords(pattern);
  if (words.length === 0 || argv.length < words.length) return false;
  return words.every((word, index) => {
    const actual = argv[index]!;
    if (wordMatches(word, actual)) return true;
    return index === 0 && !word.includes('/') && wordMatches(word, actual.slice(actual.lastIndexOf('/') + 1));
  });
}

function argsMatch(patterns: Readonly<Record<string, string>>, args: Record<string, unknown>): boolean {
  return Object.entries(patterns).every(([name, pattern]) => {
    const value = args[name];
    return typeof value === 'string' && globMatches(pattern, value);
  });
}

function defaultAction(mode: ApprovalMode, call: JudgedCall): Action {
  if (mode === 'always') return 'ask';
  if (mode === 'never') return 'allow';
  return call.readOnly ? 'allow' : 'ask';
}

function ruleText(rule: ApprovalRule): string {
  const { action, tool } = actionOf(rule);
  const narrowed = rule.command ? ` "${rule.command}"` : rule.args ? ` ${JSON.stringify(rule.args)}` : '';
  return `${action} rule for ${tool}${narrowed}`;
}

interface Verdict {
  action: Action;
  reason: string;
  /** Set when no configured rule decided (the mode's default did): the only verdicts a learned rule may change. */
  byDefault?: true;
}

/** The verdict of the rules and mode on one bash command. */
function judgeCommand(command: ShellCommand, rules: readonly ApprovalRule[], mode: ApprovalMode, call: JudgedCall, learned: readonly LearnedRule[] = []): Verdict {
  const shown = command.argv.length ? `"${command.argv.join(' ')}"` : 'a command';
  for (const rule of rules) {
    const { action, tool } = actionOf(rule);
    if (!globMatches(tool, 'bash')) continue;
    if (rule.command !== undefined) {
      if (!commandMatches(rule.command, command.argv)) continue;
      // A prefix never allows what cannot be read; it may still deny or ask it.
      if (command.uncertain && action === 'allow') continue;
    }
    return { action, reason: rule.reason ?? `${shown} matches the ${ruleText(rule)}` };
  }
  if (command.uncertain) return { action: 'ask', reason: `${shown} cannot be checked by the rules: ${command.uncertain}` };
  if (learnedAllows(learned, 'bash', command.argv)) return { action: 'allow', reason: `${shown} was always allowed from an approval` };
  const action = defaultAction(mode, call);
  return { action, reason: `${shown} is not covered by a rule (approvals.mode is ${mode})`, byDefault: true };
}

/** Judges a call against the `approvals` config, then (only where it would ask) against the learned rules. */
export async function judgeToolCall(config: ApprovalsConfig, call: JudgedCall, learned?: LearnedRules): Promise<ApprovalDecision> {
  const mode = config.mode ?? 'mutating';
  const rules = config.rules ?? [];
  const judge = (known: readonly LearnedRule[]) => (call.tool === 'bash' ? judgeBash(rules, mode, call, known) : Promise.resolve(judgeTool(rules, mode, call, known)));
  let decision = await judge([]);
  if (decision.action === 'ask' && learned) {
    const known = await learned();
    if (known.length) decision = await judge(known);
  }
  if (decision.action === 'ask' && mode === 'never') return { action: 'deny', reason: `it would need approval and approvals.mode is never: ${decision.reason}` };
  return decision;
}

function judgeTool(rules: readonly ApprovalRule[], mode: ApprovalMode, call: JudgedCall, learned: readonly LearnedRule[] = []): ApprovalDecision {
  return decide(toolVerdict(rules, mode, call, learned));
}

function toolVerdict(rules: readonly ApprovalRule[], mode: ApprovalMode, call: JudgedCall, learned: readonly LearnedRule[]): Verdict {
  for (const rule of rules) {
    const { action, tool } = actionOf(rule);
    if (!globMatches(tool, call.tool) || (rule.args && !argsMatch(rule.args, call.args))) continue;
    return { action, reason: rule.reason ?? `"${call.tool}" matches the ${ruleText(rule)}` };
  }
  if (learnedAllows(learned, call.tool)) return { action: 'allow', reason: `"${call.tool}" was always allowed from an approval` };
  return { action: defaultAction(mode, call), reason: `"${call.tool}" is not covered by a rule (approvals.mode is ${mode})`, byDefault: true };
}

/**
 * The learned rules that would let `call` run without asking from now on:
 * the tool itself, or for bash each asked command exactly. Refused (with the
 * reason) when a configured rule asks or denies it, or a command cannot be
 * read for certain: "always allow" only replaces the mode's default.
 */
export async function alwaysAllowRules(config: ApprovalsConfig, call: JudgedCall): Promise<{ rules: LearnedRule[] } | { refused: string }> {
  const mode = config.mode ?? 'mutating';
  if (mode === 'never') return { refused: 'approvals.mode is never: nothing is asked, so nothing can be always allowed' };
  const rules = config.rules ?? [];
  const refusal = (verdict: Verdict) => ({ refused: `${verdict.reason}; approve it once, or change approvals.rules in the config` });
  if (call.tool !== 'bash') {
    const verdict = toolVerdict(rules, mode, call, []);
    if (verdict.action === 'allow') return { rules: [] };
    return verdict.byDefault ? { rules: [{ tool: call.tool }] } : refusal(verdict);
  }
  const line = call.args.command;
  if (typeof line !== 'string') return { refused: 'the bash call has no command string' };
  const analysis = await analyzeShell(line);
  if (analysis.unparseable) return { refused: `the command line cannot be read for certain (${analysis.unparseable}); approve it once instead` };
  const learned: LearnedRule[] = [];
  for (const command of analysis.commands) {
    const verdict = judgeCommand(command, rules, mode, call);
    if (verdict.action === 'allow') continue;
    if (!verdict.byDefault) return refusal(verdict);
    learned.push({ tool: 'bash', argv: [...command.argv] });
  }
  return { rules: learned };
}

function decide(verdict: Verdict): ApprovalDecision {
  return verdict.action === 'allow' ? { action: 'allow' } : { action: verdict.action, reason: verdict.reason };
}

async function judgeBash(rules: readonly ApprovalRule[], mode: ApprovalMode, call: JudgedCall, learned: readonly LearnedRule[] = []): Promise<ApprovalDecision> {
  const line = call.args.command;
  if (typeof line !== 'string') return { action: 'ask', reason: 'the bash call has no command string' };
  const analysis = await analyzeShell(line);
  const verdicts: Verdict[] = analysis.commands.map((command) => judgeCommand(command, rules, mode, call, learned));
  if (analysis.unparseable) {
    // Only a rule for the whole tool can speak for a line nobody can read.
    verdicts.push(judgeCommand({ argv: [], uncertain: analysis.unparseable }, rules.filter((rule) => rule.command === undefined), mode, call));
  }
  if (verdicts.length === 0) return { action: 'allow' };
  const deny = verdicts.find((verdict) => verdict.action === 'deny');
  if (deny) return { action: 'deny', reason: deny.reason };
  const asks = verdicts.filter((verdict) => verdict.action === 'ask');
  if (asks.length) return { action: 'ask', reason: [...new Set(asks.map((verdict) => verdict.reason))].join('; ') };
  return { action: 'allow' };
}
