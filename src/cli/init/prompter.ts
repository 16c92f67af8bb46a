/**
 * The four questions the wizard asks, behind an interface so the wizard can be driven by
 * scripted answers in tests. The real implementation loads @inquirer/prompts on first use:
 * the package is heavy and no other command needs it.
 */

export interface InputQuestion {
  message: string;
  default?: string;
  /** true, or the message shown while the answer is not accepted. */
  validate?: (value: string) => true | string;
}

export interface ConfirmQuestion {
  message: string;
  default: boolean;
}

export interface SelectQuestion<T extends string> {
  message: string;
  choices: readonly { name: string; value: T }[];
  default?: T;
}

export interface NumberQuestion {
  message: string;
  default?: number;
  min?: number;
  max?: number;
}

export interface Prompter {
  input(question: InputQuestion): Promise<string>;
  confirm(question: ConfirmQuestion): Promise<boolean>;
  select<T extends string>(question: SelectQuestion<T>): Promise<T>;
  /** undefined when the answer is left empty. */
  number(question: NumberQuestion): Promise<number | undefined>;
}

/** @inquirer/prompts on the process's terminal. */
export async function inquirerPrompter(): Promise<Prompter> {
  const prompts = await import('@inquirer/prompts');
  return {
    input: (question) => prompts.input(question),
    confirm: (question) => prompts.confirm(question),
    select: <T extends string>(question: SelectQuestion<T>) => prompts.select<T>({ ...question, choices: [...question.choices] }),
    // `step: 'any'`: decimals are fine (a 62.5 ms SLO); empty is allowed and means none.
    number: (question) => prompts.number({ ...question, step: 'any', required: false }),
  };
}

/** Whether an error is the prompts' own "the user pressed Ctrl-C" (or closed the terminal). */
export function isPromptCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}
