/** Whether a model takes a reasoning level: the one rule for `--thinking` and claw's per-session setting. */
import type { ResolvedModel } from './registry.js';

export interface ThinkingProblem {
  message: string;
  hint: string;
}

/** Why `model` does not take `level`, or undefined when it does (a model with no declared metadata takes any level). */
export function thinkingProblem(level: string, model: ResolvedModel): ThinkingProblem | undefined {
  const efforts = model.info.reasoningEfforts;
  if (efforts && !efforts.includes(level)) return { message: `${model.qualified} does not take thinking level ${level}`, hint: `use one of: ${efforts.join(', ')}` };
  if (!efforts && model.listed) {
    return { message: `${model.qualified} declares no thinking levels`, hint: 'leave thinking off, or declare reasoning: [...] for it under models: in the config' };
  }
  return undefined;
}
