/**
 * A Prompter that answers from a script, as the issue allows ("scripted answers"): each
 * answer names the kind of question it expects and, optionally, words of its message, so a
 * script that drifts from the wizard's order fails loudly. `DEFAULT` presses Enter. Input
 * answers go through the question's validate as @inquirer/prompts does: a rejected answer is
 * recorded and the next answer of the script is tried for the same question (the prompt
 * asks again).
 */
import type { ConfirmQuestion, InputQuestion, NumberQuestion, Prompter, SelectQuestion } from '../../../src/cli/init/prompter.js';

export const DEFAULT = Symbol('press Enter');

export type ScriptedAnswer =
  | { confirm: boolean | typeof DEFAULT; about?: RegExp }
  | { input: string | typeof DEFAULT; about?: RegExp }
  | { select: string | typeof DEFAULT; about?: RegExp }
  | { number: number | undefined | typeof DEFAULT; about?: RegExp };

export interface ScriptedPrompter extends Prompter {
  /** Every message asked, in order. */
  readonly asked: string[];
  /** Validation messages of rejected input answers. */
  readonly rejected: string[];
  /** Answers not used yet. */
  readonly remaining: () => number;
}

export function scriptedPrompter(script: readonly ScriptedAnswer[]): ScriptedPrompter {
  const queue = [...script];
  const asked: string[] = [];
  const rejected: string[] = [];

  function next<K extends 'confirm' | 'input' | 'select' | 'number'>(kind: K, message: string): Extract<ScriptedAnswer, Record<K, unknown>> {
    const answer = queue.shift();
    if (answer === undefined) throw new Error(`script ran out of answers at ${kind} "${message}"`);
    if (!(kind in answer)) throw new Error(`script expected ${Object.keys(answer).filter((key) => key !== 'about').join()} but the wizard asked ${kind} "${message}"`);
    if (answer.about !== undefined && !answer.about.test(message)) throw new Error(`script expected a question about ${String(answer.about)}, got "${message}"`);
    return answer as Extract<ScriptedAnswer, Record<K, unknown>>;
  }

  return {
    asked,
    rejected,
    remaining: () => queue.length,
    confirm(question: ConfirmQuestion) {
      asked.push(question.message);
      const { confirm } = next('confirm', question.message);
      return Promise.resolve(confirm === DEFAULT ? question.default : confirm);
    },
    input(question: InputQuestion) {
      asked.push(question.message);
      for (;;) {
        const { input } = next('input', question.message);
        const value = input === DEFAULT ? (question.default ?? '') : input;
        const verdict = question.validate?.(value) ?? true;
        if (verdict === true) return Promise.resolve(value);
        rejected.push(verdict);
      }
    },
    select<T extends string>(question: SelectQuestion<T>) {
      asked.push(question.message);
      const { select } = next('select', question.message);
      const value = select === DEFAULT ? (question.default ?? question.choices[0]!.value) : select;
      if (!question.choices.some((choice) => choice.value === value)) throw new Error(`"${value}" is not a choice of "${question.message}"`);
      return Promise.resolve(value as T);
    },
    number(question: NumberQuestion) {
      asked.push(question.message);
      const { number } = next('number', question.message);
      const value = number === DEFAULT ? question.default : number;
      if (value !== undefined && ((question.min !== undefined && value < question.min) || (question.max !== undefined && value > question.max))) {
        throw new Error(`${value} is outside ${question.min}..${question.max} of "${question.message}"`);
      }
      return Promise.resolve(value);
    },
  };
}
